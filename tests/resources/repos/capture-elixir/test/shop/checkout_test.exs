defmodule Shop.CheckoutTest do
  use ExUnit.Case
end
