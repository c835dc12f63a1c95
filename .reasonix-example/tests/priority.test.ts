import { expect, it } from "vitest";
import { sortedByPriority } from "../src/queue.js";

it("orders higher priority first", () => {
  const out = sortedByPriority([{ priority: 1 }, { priority: 3 }, { priority: 2 }]);
  expect(out.map((x) => x.priority)).toEqual([3, 2, 1]);
});
