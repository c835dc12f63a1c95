defmodule Shop.OrdersTest do
  use ExUnit.Case
end
