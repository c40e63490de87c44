/** The dashboard's resend: the endpoint it goes to unless another is chosen. */
import { describe, expect, it } from "vitest";
import { takersFirst } from "../../src/dashboard/ui/pages/notifications/takers-first";

describe("a resend's endpoints", () => {
  it("put those that take the notification's type first, each group in its order", () => {
    const endpoints = [
      { id: "newest", enabled_events: ["candidate.pending"] },
      { id: "all", enabled_events: ["candidate.pending", "candidate.confirmed", "candidate.failed"] },
      { id: "failed-only", enabled_events: ["candidate.failed"] },
    ];
    expect(takersFirst(endpoints, "candidate.failed").map((e) => e.id)).toEqual(["all", "failed-only", "newest"]);
    expect(takersFirst(endpoints, "candidate.pending").map((e) => e.id)).toEqual(["newest", "all", "failed-only"]);
  });
});
