import { describe, expect, it } from "vitest";
import { Queue } from "../src/queue.js";

describe("Queue", () => {
  it("is first in, first out", () => {
    const q = new Queue<number>();
    q.push(1);
    q.push(2);
    expect(q.shift()).toBe(1);
    expect(q.size).toBe(1);
  });

  it("peeks without removing", () => {
    const q = new Queue<string>();
    q.push("a");
    expect(q.peek()).toBe("a");
    expect(q.size).toBe(1);
  });
});
