/** The dashboard's candidate timeline, as geometry: where each instant, band, tick and label goes. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  eventsRange,
  labelWithin,
  layoutTimeline,
  opensAroundEvents,
  placeLabels,
  scale,
  timeTicks,
  wholeRange,
  type TimelineInput,
} from "../../src/dashboard/ui/pages/candidate/timeline-layout";

const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const MIN = 60_000;

/** A candidate made at T0 with an hour's activity window, fulfilled at T0 + 20 min, reviewed for 30 min; now T0 + 30 min. */
const pending = (over: Partial<TimelineInput> = {}): TimelineInput => ({
  createdAt: T0,
  activityEndsAt: T0 + 20 * MIN,
  reviewEndsAt: T0 + 50 * MIN,
  status: "PENDING",
  now: T0 + 30 * MIN,
  events: [
    { id: "e1", at: T0 + 5 * MIN, matched: true },
    { id: "e2", at: T0 + 10 * MIN, matched: false },
    { id: "e3", at: T0 + 20 * MIN, matched: true },
  ],
  leaves: [
    { path: "fulfillment_condition.all.0", event: "signup", satisfiedAt: T0 + 5 * MIN, eventId: "e1" },
    { path: "fulfillment_condition.all.1", event: "purchase", satisfiedAt: T0 + 20 * MIN, eventId: "e3" },
  ],
  width: 1012,
  zoneOffsetMinutes: 0,
  ...over,
});

describe("the timeline's layout", () => {
  it("spans the whole life and places instants proportionally, clamped to the plot", () => {
    const range = wholeRange(pending());
    expect(range).toEqual({ from: T0, to: T0 + 50 * MIN });
    const x = scale(range, 12, 1000);
    expect(x(T0)).toBe(12);
    expect(x(T0 + 25 * MIN)).toBe(506);
    expect(x(T0 - MIN)).toBe(12);
    expect(x(T0 + 99 * MIN)).toBe(1000);
  });

  it("draws OPEN, then PENDING split at now into what happened and what is scheduled", () => {
    const layout = layoutTimeline(pending());
    expect(layout.bands.map(({ status, future }) => [status, future])).toEqual([
      ["OPEN", false],
      ["PENDING", false],
      ["PENDING", true],
    ]);
    const [open, pendingPast, pendingFuture] = layout.bands;
    expect(open.x2).toBe(pendingPast.x1);
    expect(pendingPast.x2).toBe(pendingFuture.x1);
    expect(layout.milestones.map((m) => m.key).sort()).toEqual(["activity", "created", "now", "review"]);
  });

  it("marks every event, the matched ones and those that lit a leaf; lights each leaf from its instant", () => {
    const layout = layoutTimeline(pending());
    expect(layout.events.map(({ id, matched, lit }) => [id, matched, lit])).toEqual([
      ["e1", true, true],
      ["e2", false, false],
      ["e3", true, true],
    ]);
    const eventX = Object.fromEntries(layout.events.map((e) => [e.id, e.x]));
    expect(layout.leaves.map((l) => l.litX)).toEqual([eventX.e1, eventX.e3]);
    const unmet = layoutTimeline(
      pending({ leaves: [{ path: "fulfillment_condition", event: "signup", satisfiedAt: null, eventId: null }] }),
    );
    expect(unmet.leaves[0].litX).toBeNull();
  });

  it("zoomed around the events, counts those left out", () => {
    const input = pending({ events: [...pending().events, { id: "late", at: T0 + 45 * MIN, matched: false }] });
    const around = eventsRange(input.events.slice(0, 3), wholeRange(input))!;
    const layout = layoutTimeline({ ...input, range: around });
    expect(layout.events.map((e) => e.id)).toEqual(["e1", "e2", "e3"]);
    expect(layout.hiddenEvents).toBe(1);
    expect(eventsRange([], wholeRange(input))).toBeNull();
  });

  it("opens around the events only while OPEN and crowded: once PENDING or final, on the whole life", () => {
    // A week's window with its events in its first minutes.
    const input = pending({
      activityEndsAt: T0 + 7 * 24 * 60 * MIN,
      reviewEndsAt: null,
      status: "OPEN",
      now: T0 + 24 * 60 * MIN,
      events: [{ id: "e1", at: T0 + MIN, matched: false }],
    });
    const whole = wholeRange(input);
    const around = eventsRange(input.events, whole);
    expect(opensAroundEvents("OPEN", around, whole)).toBe(true);
    expect(opensAroundEvents("PENDING", around, whole)).toBe(false);
    expect(opensAroundEvents("FAILED", around, whole)).toBe(false);
    // Events spread over the life are not crowded; none at all, nothing to open around.
    expect(opensAroundEvents("OPEN", { from: T0, to: T0 + 24 * 60 * MIN }, whole)).toBe(false);
    expect(opensAroundEvents("OPEN", null, whole)).toBe(false);
  });

  it("puts ticks on round local instants, no more than asked", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 400 * 86_400_000 }),
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom(0, -60, 330, 480),
        (span, max, offset) => {
          const ticks = timeTicks({ from: T0, to: T0 + span }, max, offset);
          expect(ticks.length).toBeLessThanOrEqual(Math.max(max, 1) + 1);
          for (const tick of ticks) {
            expect(tick.t).toBeGreaterThanOrEqual(T0);
            expect(tick.t).toBeLessThanOrEqual(T0 + span);
            expect((tick.t - offset * MIN) % 1000).toBe(0);
          }
        },
      ),
    );
  });

  it("places labels inside the plot, none overlapping another in its row", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            x: fc.integer({ min: 12, max: 378 }),
            text: fc.constantFrom("Created", "Activity end", "Review end", "Now"),
          }),
          { maxLength: 4 },
        ),
        (items) => {
          const placed = placeLabels(
            items.map((item, key) => ({ ...item, key })),
            12,
            378,
          );
          const spans = placed.map((p) => {
            const w = items[p.key].text.length * 7;
            const left = p.anchor === "start" ? p.textX : p.anchor === "end" ? p.textX - w : p.textX - w / 2;
            return { row: p.row, left, right: left + w };
          });
          for (const [i, a] of spans.entries()) {
            expect(a.left).toBeGreaterThanOrEqual(12 - 1e-9);
            for (const b of spans.slice(i + 1))
              if (a.row === b.row) expect(a.right + 8 <= b.left || b.right + 8 <= a.left).toBe(true);
          }
        },
      ),
    );
  });
});

describe("labelWithin", () => {
  const met = " · all.0 — met 10:05";

  it("keeps a label that fits whole", () => {
    expect(labelWithin(1000, "signup", met)).toBe(`signup${met}`);
  });

  it("cuts a long name, never what follows it", () => {
    const label = labelWithin(300, "t".repeat(255), met);
    expect(label.endsWith(`…${met}`)).toBe(true);
    expect(label.length).toBeLessThanOrEqual(Math.floor(300 / 6.5));
  });

  it("never splits a character, and sets the name in with `show`", () => {
    const label = labelWithin(200, "\u{1F9FE}".repeat(100), met, (name) => `[${name}]`);
    expect(label).toMatch(new RegExp(`^\\[(\u{1F9FE})+…\\]${met}$`, "u"));
  });
});
