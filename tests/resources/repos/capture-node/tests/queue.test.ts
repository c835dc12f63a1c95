import { describe, expect, it } from "vitest";
import { Queue } from "../src/queue.js";

describe("Queue", () => {
  it("is first in, first out", () => {
    const q = new Queue<number>();
    q.push(1);
    q.push(2);
    expect(q.shift()).toBe(1);
  });
});
