defmodule Shop.Orders do
end
