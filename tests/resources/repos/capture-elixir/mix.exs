defmodule Shop.MixProject do
  use Mix.Project

  def project do
    [app: :shop, version: "0.1.0", elixir: "~> 1.17", deps: deps(), aliases: aliases()]
  end

  defp deps do
    [{:jason, "~> 1.4"}, {:credo, "~> 1.7", only: [:dev, :test]}, {:dialyxir, "~> 1.4", only: :dev}]
  end

  defp aliases do
    [quality: ["format --check-formatted", "credo --strict", "dialyzer"]]
  end
end
