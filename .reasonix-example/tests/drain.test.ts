import { describe, expect, it } from "vitest";
import { Queue } from "../src/queue.js";
import { drainAll } from "../src/drain.js";

describe("drainAll", () => {
  it("empties the queue in order", () => {
    const q = new Queue<number>();
    q.push(1);
    q.push(2);
    expect(drainAll(q)).toEqual([1, 2]);
    expect(q.size).toBe(0);
  });
});
