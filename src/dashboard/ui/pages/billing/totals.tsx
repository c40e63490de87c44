/**
 * The month's totals per status, twice: as bars (a picture) and as a table (its text alternative
 * and the exact figures). Every figure printed is the API's own string; only bar lengths use
 * numbers, as proportions.
 */
import { useState } from "preact/hooks";
import type { Models } from "../../api";
import { countOf, StatusBadge } from "../../components/values";
import { TableWrap } from "../../components/table-wrap";

interface Line {
  key: string;
  label: string;
  status: string;
  count: number;
  amount: string;
  /** A part of the line above it (PENDING's scheduled CONFIRMED). */
  part?: boolean;
}

export function lines(summary: Pick<Models["Summary"], "OPEN" | "PENDING" | "CONFIRMED" | "FAILED">): Line[] {
  const { OPEN, PENDING, CONFIRMED, FAILED } = summary;
  return [
    { key: "open", label: "OPEN", status: "OPEN", ...OPEN },
    { key: "pending", label: "PENDING", status: "PENDING", count: PENDING.count, amount: PENDING.amount },
    {
      key: "scheduled",
      label: "of which scheduled CONFIRMED",
      status: "CONFIRMED",
      ...PENDING.scheduled_confirmed,
      part: true,
    },
    { key: "confirmed", label: "CONFIRMED", status: "CONFIRMED", ...CONFIRMED },
    { key: "failed", label: "FAILED", status: "FAILED", ...FAILED },
  ];
}

const WIDTH = 340;
const ROW = 56;

/** Horizontal bars, one per line, each under its label and exact figure (two lines: long amounts fit). */
export function TotalsChart({ summary, month }: { summary: Models["Summary"]; month: string }) {
  const [measure, setMeasure] = useState<"amount" | "count">("amount");
  const rows = lines(summary);
  // For the bars' lengths only: a proportion needs no exactness, and nothing computed here is shown.
  const size = (line: Line) => (measure === "amount" ? Number(line.amount) : line.count);
  const max = Math.max(...rows.map(size), 0);
  const name = measure === "amount" ? "Amount" : "Number of candidates";
  return (
    <figure class="panel billing-chart">
      <fieldset class="checks measure">
        <legend>Bars show</legend>
        {(["amount", "count"] as const).map((m) => (
          <label key={m}>
            <input type="radio" name="measure" value={m} checked={measure === m} onChange={() => setMeasure(m)} />
            {m === "amount" ? "Amounts" : "Counts"}
          </label>
        ))}
      </fieldset>
      <svg
        class="chart"
        viewBox={`0 0 ${WIDTH} ${rows.length * ROW - 8}`}
        role="img"
        aria-label={`${name} per status, ${month}: ${rows.map((l) => `${l.label} ${measure === "amount" ? l.amount : l.count}`).join("; ")}. The table gives every figure.`}
      >
        {rows.map((line, i) => {
          const y = i * ROW;
          const x = line.part ? 16 : 0;
          const span = WIDTH - x;
          const value = size(line);
          const length = max > 0 && value > 0 ? Math.max(2, (value / max) * span) : 0;
          return (
            <g key={line.key}>
              <text x={x} y={y + 13}>
                {line.label}
              </text>
              <text x={x} y={y + 28} class="muted-text">
                {measure === "amount"
                  ? `${line.amount} · ${countOf(line.count, "candidate")}`
                  : `${countOf(line.count, "candidate")} · ${line.amount}`}
              </text>
              <rect class="axis-track" x={x} y={y + 34} width={span} height={12} rx={3} />
              <rect
                class={`bar bar-${line.status.toLowerCase()}${line.part ? " bar-part" : ""}`}
                x={x}
                y={y + 34}
                width={length}
                height={12}
                rx={3}
              />
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** The same figures as a table: count and exact amount per status. */
export function TotalsTable({ summary }: { summary: Models["Summary"] }) {
  return (
    <TableWrap label="Billing totals">
      <table class="totals">
        <caption class="visually-hidden">Candidates and amounts per status</caption>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Candidates
            </th>
            <th scope="col" class="num">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {lines(summary).map((line) => (
            <tr key={line.key} class={line.part ? "part" : undefined}>
              <th scope="row">
                {line.part ? <span class="muted">{line.label}</span> : <StatusBadge status={line.status} />}
              </th>
              <td class="num">{line.count}</td>
              <td class="num mono amount">{line.amount}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
