/**
 * The candidate's life as a picture: its status bands, window ends and now, every event as a tick
 * (matched ones marked), and one row per condition leaf, lit from the instant it was met. The
 * events table below it is its text alternative; the geometry is in timeline-layout.ts.
 */
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Models } from "../../api";
import { LOCAL_TIME } from "../../components/values";
import { leafName } from "./facts";
import { isolated } from "../../components/bidi";
import {
  eventsRange,
  labelWithin,
  layoutTimeline,
  MILESTONE_LABELS,
  opensAroundEvents,
  wholeRange,
  type Layout,
  type Status,
  type TickUnit,
} from "./timeline-layout";

type Candidate = Models["CandidateWithEvents"];

/** The container's width in px, followed as it changes (rotation, window resize). */
function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(720);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.clientWidth);
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry.contentRect.width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

const ms = (iso: string) => Date.parse(iso);
const when = (t: number) => LOCAL_TIME.format(t);

function tickLabel(t: number, unit: TickUnit) {
  const date = new Date(t);
  if (unit === "day") return date.toLocaleDateString(undefined, { month: "short", day: "numeric" });
  return date.toLocaleTimeString(
    undefined,
    unit === "second"
      ? { hour: "2-digit", minute: "2-digit", second: "2-digit" }
      : { hour: "2-digit", minute: "2-digit" },
  );
}

/** What the picture shows, in one sentence or three, for screen readers. */
function summary(candidate: Candidate, now: number): string {
  const matched = candidate.events.filter((e) => e.matched).length;
  const leaves = candidate.condition_progress.leaves;
  const met = leaves.filter((l) => l.satisfied_at !== null);
  return [
    `Timeline of ${isolated(candidate.candidate_alias)}: created ${when(ms(candidate.created_at))}`,
    `activity window ends ${when(ms(candidate.activity_ends_at))}`,
    candidate.review_ends_at
      ? `review ends ${when(ms(candidate.review_ends_at))}`
      : candidate.status === "OPEN"
        ? "review not started"
        : "no review",
    `${candidate.status} as read at ${when(now)}.`,
  ]
    .join(", ")
    .concat(
      ` ${candidate.events.length} events, ${matched} matched. Condition leaves met: ${met.length} of ${leaves.length}`,
    )
    .concat(
      met.length ? ` (${met.map((l) => `${isolated(l.event)} at ${when(ms(l.satisfied_at!))}`).join("; ")}).` : ".",
    );
}

export function Timeline({ candidate, now }: { candidate: Candidate; now: number }) {
  const { ref, width } = useWidth();
  // Unchosen: opensAroundEvents decides.
  const [chosen, setZoom] = useState<boolean | null>(null);
  const base = {
    createdAt: ms(candidate.created_at),
    activityEndsAt: ms(candidate.activity_ends_at),
    reviewEndsAt: candidate.review_ends_at ? ms(candidate.review_ends_at) : null,
    status: candidate.status as Status,
    now,
    events: candidate.events.map((e) => ({ id: e.id, at: ms(e.received_at), matched: e.matched })),
    leaves: candidate.condition_progress.leaves.map((l) => ({
      path: l.path,
      event: l.event,
      satisfiedAt: l.satisfied_at ? ms(l.satisfied_at) : null,
      eventId: l.event_id,
    })),
    zoneOffsetMinutes: new Date(now).getTimezoneOffset(),
  };
  const whole = wholeRange(base);
  const around = eventsRange(base.events, whole);
  const zoom = chosen ?? opensAroundEvents(base.status, around, whole);
  const layout = layoutTimeline({ ...base, width, range: zoom && around ? around : undefined });
  return (
    <div class="tl-wrap">
      {around && (
        <div class="tl-zoom" role="group" aria-label="Time shown">
          <button type="button" class="secondary" aria-pressed={!zoom} onClick={() => setZoom(false)}>
            Whole life
          </button>
          <button type="button" class="secondary" aria-pressed={zoom} onClick={() => setZoom(true)}>
            Around the events
          </button>
        </div>
      )}
      <div ref={ref}>
        <svg
          class="chart tl"
          role="img"
          aria-label={summary(candidate, now)}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          width={layout.width}
          height={layout.height}
        >
          <Picture layout={layout} candidate={candidate} />
        </svg>
      </div>
      {layout.hiddenEvents > 0 && <p class="muted">{layout.hiddenEvents} events fall outside the time shown.</p>}
      <Legend />
    </div>
  );
}

function Picture({ layout, candidate }: { layout: Layout; candidate: Candidate }) {
  const { plot, band, eventsRow, axis } = layout;
  const labelled = new Set<string>();
  const eventsById = new Map(candidate.events.map((e) => [e.id, e]));
  return (
    <>
      {layout.bands.map((b) => {
        const text = b.status;
        const fits = b.x2 - b.x1 > text.length * 8 + 8 && !labelled.has(text);
        if (fits) labelled.add(text);
        return (
          <g key={`${b.status}-${b.future}`}>
            <rect
              class={`tl-band tl-${b.status.toLowerCase()}${b.future ? " tl-future" : ""}`}
              x={b.x1}
              y={band.y}
              width={Math.max(b.x2 - b.x1, 1)}
              height={band.height}
              rx={3}
            />
            {fits && (
              <text
                class={`tl-on tl-on-${b.status.toLowerCase()}`}
                x={(b.x1 + b.x2) / 2}
                y={band.y + 15}
                text-anchor="middle"
              >
                {text}
              </text>
            )}
          </g>
        );
      })}
      {layout.milestones.map((m) => (
        <g key={m.key}>
          <line class={m.key === "now" ? "tl-now" : "tl-mark"} x1={m.x} x2={m.x} y1={layout.marksTop} y2={axis.y} />
          <text
            class={m.key === "now" ? "tl-now-label" : "tl-label"}
            x={m.textX}
            y={layout.labelY(m.row)}
            text-anchor={m.anchor}
          >
            {MILESTONE_LABELS[m.key]}
          </text>
        </g>
      ))}
      <text class="muted-text" x={plot.x1} y={eventsRow.captionY}>
        Events ({candidate.events.length})
      </text>
      <line
        class="axis"
        x1={plot.x1}
        x2={plot.x2}
        y1={eventsRow.y + eventsRow.height / 2}
        y2={eventsRow.y + eventsRow.height / 2}
      />
      {layout.events.map((e) => {
        const event = eventsById.get(e.id)!;
        const cy = eventsRow.y + eventsRow.height / 2;
        return (
          <g key={e.id}>
            <title>{`${isolated(event.type)} at ${when(ms(event.received_at))}${e.matched ? " (matched)" : ""}`}</title>
            {e.lit && <circle class="tl-ring" cx={e.x} cy={cy} r={9} />}
            {e.matched ? (
              <rect
                class="tl-matched"
                x={e.x - 5}
                y={cy - 5}
                width={10}
                height={10}
                transform={`rotate(45 ${e.x} ${cy})`}
              />
            ) : (
              <line class="tl-tick" x1={e.x} x2={e.x} y1={eventsRow.y + 3} y2={eventsRow.y + eventsRow.height - 3} />
            )}
          </g>
        );
      })}
      <text class="muted-text" x={plot.x1} y={layout.leavesCaptionY}>
        Condition {candidate.condition_progress.fulfilled ? "(fulfilled)" : "(not fulfilled)"}
      </text>
      {layout.leaves.map((leaf, i) => {
        const met = candidate.condition_progress.leaves[i].satisfied_at;
        return (
          <g key={leaf.path}>
            <text class="tl-label" x={plot.x1} y={leaf.labelY}>
              {labelWithin(
                plot.x2 - plot.x1,
                leaf.event,
                ` · ${leafName(leaf.path)} — ${met ? `met ${when(ms(met))}` : "not met"}`,
                isolated,
              )}
            </text>
            <rect class="tl-track" x={plot.x1} y={leaf.barY} width={plot.x2 - plot.x1} height={leaf.barHeight} rx={2} />
            {leaf.litX !== null && (
              <>
                <line
                  class="tl-link"
                  x1={leaf.litX}
                  x2={leaf.litX}
                  y1={eventsRow.y + eventsRow.height}
                  y2={leaf.barY}
                />
                <rect
                  class="tl-lit"
                  x={leaf.litX}
                  y={leaf.barY}
                  width={Math.max(plot.x2 - leaf.litX, 2)}
                  height={leaf.barHeight}
                  rx={2}
                />
              </>
            )}
          </g>
        );
      })}
      <line class="axis" x1={plot.x1} x2={plot.x2} y1={axis.y} y2={axis.y} />
      {axis.ticks.map((tick) => {
        const anchor = tick.x < plot.x1 + 30 ? "start" : tick.x > plot.x2 - 30 ? "end" : "middle";
        return (
          <g key={tick.t}>
            <line class="axis" x1={tick.x} x2={tick.x} y1={axis.y} y2={axis.y + 5} />
            <text class="muted-text" x={tick.x} y={axis.y + 18} text-anchor={anchor}>
              {tickLabel(tick.t, tick.unit)}
            </text>
            {tick.newDay && (
              <text class="muted-text" x={tick.x} y={axis.y + 32} text-anchor={anchor}>
                {tickLabel(tick.t, "day")}
              </text>
            )}
          </g>
        );
      })}
    </>
  );
}

/** What the colours and shapes mean (statuses are also written in their bands). */
function Legend() {
  const swatch = (children: ComponentChildren) => (
    <svg class="tl-swatch" width="18" height="14" viewBox="0 0 18 14" aria-hidden="true">
      {children}
    </svg>
  );
  const bands: Status[] = ["OPEN", "PENDING", "CONFIRMED", "FAILED"];
  return (
    <ul class="tl-legend">
      {bands.map((s) => (
        <li key={s}>
          {swatch(<rect class={`tl-band tl-${s.toLowerCase()}`} x="1" y="2" width="16" height="10" rx="2" />)} {s}
        </li>
      ))}
      <li>
        {swatch(<rect class="tl-band tl-open tl-future" x="1" y="2" width="16" height="10" rx="2" />)} scheduled (after
        now)
      </li>
      <li>{swatch(<line class="tl-tick" x1="9" x2="9" y1="1" y2="13" />)} event</li>
      <li>
        {swatch(<rect class="tl-matched" x="5" y="3" width="8" height="8" transform="rotate(45 9 7)" />)} matched event
      </li>
      <li>{swatch(<circle class="tl-ring" cx="9" cy="7" r="5" />)} event that met a leaf</li>
      <li>{swatch(<rect class="tl-lit" x="1" y="3" width="16" height="8" rx="2" />)} leaf met (lit)</li>
      <li>{swatch(<line class="tl-now" x1="9" x2="9" y1="0" y2="14" />)} now</li>
    </ul>
  );
}
