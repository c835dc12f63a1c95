defmodule Shop.Repo.Migrations.Init do
  use Ecto.Migration
end
