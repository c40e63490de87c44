/**
 * The candidate timeline's geometry, as pure functions of the API's instants (ms) and a width in
 * px: no DOM, no clock, no time zone lookups (the caller passes them), so it can be unit-tested.
 * The picture is drawn 1 unit = 1 px at the measured width, so its text stays readable at 390 px.
 */

export type Status = "OPEN" | "PENDING" | "CONFIRMED" | "FAILED";

export interface TimelineInput {
  createdAt: number;
  activityEndsAt: number;
  /** null while OPEN. */
  reviewEndsAt: number | null;
  status: Status;
  now: number;
  events: { id: string; at: number; matched: boolean }[];
  leaves: { path: string; event: string; satisfiedAt: number | null; eventId: string | null }[];
  width: number;
  /** `Date.prototype.getTimezoneOffset()`: ticks fall on local hours and days. */
  zoneOffsetMinutes: number;
  /** The instants shown; default: the candidate's whole life (see `wholeRange`). */
  range?: Range;
}

export interface Range {
  from: number;
  to: number;
}

export type Anchor = "start" | "middle" | "end";
export type TickUnit = "second" | "minute" | "day";

export interface Band {
  status: Status;
  x1: number;
  x2: number;
  /** After now: what is scheduled, not yet what happened. */
  future: boolean;
}

export interface Milestone {
  key: "created" | "activity" | "review" | "now";
  x: number;
  textX: number;
  anchor: Anchor;
  row: number;
}

export interface Layout {
  width: number;
  height: number;
  plot: { x1: number; x2: number };
  labelY: (row: number) => number;
  marksTop: number;
  band: { y: number; height: number };
  bands: Band[];
  milestones: Milestone[];
  eventsRow: { captionY: number; y: number; height: number };
  events: { id: string; x: number; matched: boolean; lit: boolean }[];
  /** Events outside `range`, not drawn. */
  hiddenEvents: number;
  leavesCaptionY: number;
  leaves: { path: string; event: string; labelY: number; barY: number; barHeight: number; litX: number | null }[];
  axis: { y: number; ticks: { x: number; t: number; unit: TickUnit; newDay: boolean }[] };
}

export const MILESTONE_LABELS: Record<Milestone["key"], string> = {
  created: "Created",
  activity: "Activity end",
  review: "Review end",
  now: "Now",
};

const PAD = 12;
const LABEL_ROW = 15;
const CHAR_WIDTH = 7;
const LEAF_ROW = 30;

/** The candidate's whole life: creation to the later of its last window's end, its last event and now. */
export function wholeRange(
  input: Pick<TimelineInput, "createdAt" | "activityEndsAt" | "reviewEndsAt" | "now" | "events">,
): Range {
  const to = Math.max(
    input.reviewEndsAt ?? input.activityEndsAt,
    input.activityEndsAt,
    input.now,
    ...input.events.map((e) => e.at),
  );
  return { from: input.createdAt, to: Math.max(to, input.createdAt + 1000) };
}

/** Around the events (and the leaves they lit), with a margin: a long window otherwise squeezes them into one spot. */
export function eventsRange(events: { at: number }[], whole: Range): Range | null {
  if (events.length === 0) return null;
  const first = Math.min(...events.map((e) => e.at));
  const last = Math.max(...events.map((e) => e.at));
  const margin = Math.max((last - first) * 0.1, 1000);
  return { from: Math.max(whole.from, first - margin), to: Math.min(whole.to, last + margin) };
}

/**
 * Whether the picture opens around the events (`around`) rather than on the whole life: for an
 * OPEN candidate whose events would crowd a tenth of it, as they are its story then. Once PENDING
 * or final the outcome is, and only the whole life shows it.
 */
export function opensAroundEvents(status: Status, around: Range | null, whole: Range): boolean {
  return status === "OPEN" && around !== null && around.to - around.from < (whole.to - whole.from) / 10;
}

/** instant → x within the plot, clamped to it. */
export function scale(range: Range, x1: number, x2: number): (t: number) => number {
  const span = Math.max(range.to - range.from, 1);
  return (t) => x1 + ((Math.min(Math.max(t, range.from), range.to) - range.from) / span) * (x2 - x1);
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STEPS = [1, 2, 5, 10, 15, 30]
  .map((n) => n * SECOND)
  .concat(
    [1, 2, 5, 10, 15, 30].map((n) => n * MINUTE),
    [1, 2, 3, 6, 12].map((n) => n * HOUR),
    [1, 2, 7, 14, 30, 91, 365].map((n) => n * DAY),
  );

/** Round instants (local seconds, minutes or days) across `range`, at most `maxTicks` of them. */
export function timeTicks(
  range: Range,
  maxTicks: number,
  zoneOffsetMinutes: number,
): { t: number; unit: TickUnit; newDay: boolean }[] {
  const span = range.to - range.from;
  const step = STEPS.find((s) => span / s <= Math.max(maxTicks, 1)) ?? STEPS[STEPS.length - 1];
  const unit: TickUnit = step < MINUTE ? "second" : step < DAY ? "minute" : "day";
  const shift = zoneOffsetMinutes * MINUTE; // local = utc - shift
  const ticks: { t: number; unit: TickUnit; newDay: boolean }[] = [];
  let previousDay: number | null = null;
  for (let local = Math.ceil((range.from - shift) / step) * step; local <= range.to - shift; local += step) {
    const day = Math.floor(local / DAY);
    ticks.push({ t: local + shift, unit, newDay: unit !== "day" && day !== previousDay });
    previousDay = day;
  }
  return ticks;
}

/**
 * Labels above the plot: each centred on its mark unless that overflows an edge, then in the
 * first row where it overlaps no label already placed.
 */
export function placeLabels<K>(
  items: { key: K; x: number; text: string }[],
  x1: number,
  x2: number,
): { key: K; textX: number; anchor: Anchor; row: number }[] {
  const rowsEnd: number[] = [];
  return [...items]
    .sort((a, b) => a.x - b.x)
    .map(({ key, x, text }) => {
      const w = text.length * CHAR_WIDTH;
      let anchor: Anchor = "middle";
      let left = x - w / 2;
      if (left < x1) [anchor, left] = ["start", Math.max(x, x1)];
      else if (x + w / 2 > x2) [anchor, left] = ["end", Math.min(x, x2) - w];
      let row = rowsEnd.findIndex((end) => end + 8 <= left);
      if (row === -1) row = rowsEnd.push(0) - 1;
      rowsEnd[row] = left + w;
      return { key, textX: anchor === "start" ? left : anchor === "end" ? left + w : x, anchor, row };
    });
}

/** The status bands: OPEN from creation, PENDING through the review, then the final status; each split at now. */
function bands(input: TimelineInput, range: Range, x: (t: number) => number): Band[] {
  const spans: { status: Status; from: number; to: number }[] = [
    { status: "OPEN", from: input.createdAt, to: input.activityEndsAt },
  ];
  if (input.reviewEndsAt !== null)
    spans.push({ status: "PENDING", from: input.activityEndsAt, to: input.reviewEndsAt });
  if (input.status === "CONFIRMED" || input.status === "FAILED")
    spans.push({ status: input.status, from: input.reviewEndsAt ?? input.activityEndsAt, to: range.to });
  const out: Band[] = [];
  for (const span of spans) {
    const parts = [
      { from: span.from, to: Math.min(span.to, input.now), future: false },
      { from: Math.max(span.from, input.now), to: span.to, future: true },
    ];
    for (const part of parts) {
      const from = Math.max(part.from, range.from);
      const to = Math.min(part.to, range.to);
      if (to > from) out.push({ status: span.status, x1: x(from), x2: x(to), future: part.future });
    }
  }
  return out;
}

export function layoutTimeline(input: TimelineInput): Layout {
  const width = Math.max(Math.round(input.width), 280);
  const range = input.range ?? wholeRange(input);
  const plot = { x1: PAD, x2: width - PAD };
  const x = scale(range, plot.x1, plot.x2);
  const inRange = (t: number) => t >= range.from && t <= range.to;

  const marks: { key: Milestone["key"]; t: number }[] = [
    { key: "created", t: input.createdAt },
    { key: "activity", t: input.activityEndsAt },
    ...(input.reviewEndsAt !== null && input.reviewEndsAt !== input.activityEndsAt
      ? [{ key: "review" as const, t: input.reviewEndsAt }]
      : []),
    { key: "now", t: input.now },
  ];
  const visible = marks.filter((m) => inRange(m.t));
  const placed = placeLabels(
    visible.map((m) => ({ key: m.key, x: x(m.t), text: MILESTONE_LABELS[m.key] })),
    plot.x1,
    plot.x2,
  );
  const milestones = placed.map((p) => ({ ...p, x: x(visible.find((m) => m.key === p.key)!.t) }));
  const labelRows = Math.max(1, ...placed.map((p) => p.row + 1));

  const marksTop = labelRows * LABEL_ROW + 4;
  const band = { y: marksTop + 4, height: 22 };
  const eventsRow = { captionY: band.y + band.height + 16, y: band.y + band.height + 22, height: 22 };
  const litIds = new Set(input.leaves.map((l) => l.eventId).filter((id): id is string => id !== null));
  const shown = input.events.filter((e) => inRange(e.at));
  const leavesCaptionY = eventsRow.y + eventsRow.height + 18;
  const leavesTop = leavesCaptionY + 6;
  const leaves = input.leaves.map((leaf, i) => ({
    path: leaf.path,
    event: leaf.event,
    labelY: leavesTop + i * LEAF_ROW + 12,
    barY: leavesTop + i * LEAF_ROW + 16,
    barHeight: 9,
    litX: leaf.satisfiedAt === null || leaf.satisfiedAt > range.to ? null : x(leaf.satisfiedAt),
  }));
  const axisY = leavesTop + input.leaves.length * LEAF_ROW + 8;
  const ticks = timeTicks(range, Math.floor((plot.x2 - plot.x1) / 95), input.zoneOffsetMinutes).map((tick) => ({
    ...tick,
    x: x(tick.t),
  }));

  return {
    width,
    height: axisY + 40,
    plot,
    labelY: (row) => (row + 1) * LABEL_ROW - 3,
    marksTop,
    band,
    bands: bands(input, range, x),
    milestones,
    eventsRow,
    events: shown.map((e) => ({ id: e.id, x: x(e.at), matched: e.matched, lit: litIds.has(e.id) })),
    hiddenEvents: input.events.length - shown.length,
    leavesCaptionY,
    leaves,
    axis: { y: axisY, ticks },
  };
}

/** About how wide a character of a label is, in px. */
const CHAR_PX = 6.5;

/**
 * A label of a name and what follows it, within `width` px: a long name is cut (the page's facts
 * hold it whole), never what follows it (whether a leaf is met, say). `show` sets the name into
 * the label (isolating it); a character is never split in two.
 */
export function labelWithin(width: number, name: string, rest: string, show = (text: string) => text) {
  const room = Math.max(Math.floor(width / CHAR_PX) - rest.length, 2);
  const chars = [...name];
  return `${show(chars.length <= room ? name : `${chars.slice(0, room - 1).join("")}…`)}${rest}`;
}
