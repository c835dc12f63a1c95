import { expect, it } from "vitest";
import { parse } from "../src/parser.js";

it("splits on commas", () => {
  expect(parse("a, b")).toEqual(["a", "b"]);
});
