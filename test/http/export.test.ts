/** GET /v1/candidates/export (docs/billing.md): the list's filters, as CSV. */
import { describe, expect, it } from "vitest";
import { uuidv7 } from "uuidv7";
import { candidateIndexStatement } from "../../src/db/candidate-index";
import type { CandidateRecord } from "../../src/candidate/record";
import {
  call,
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  okBody,
  type TestAccount,
  dbOf,
} from "../support/api";
import { useClock } from "../support/clock";

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (!quoted && ch === ",") {
      record.push(field);
      field = "";
    } else if (!quoted && ch === "\r" && text[i + 1] === "\n") {
      records.push([...record, field]);
      record = [];
      field = "";
      i++;
    } else {
      field += ch;
    }
  }
  expect(record, "the last record ends with CRLF").toEqual([]);
  return records;
}

const exportCsv = (account: TestAccount, query = "") =>
  call<string>("GET", `/v1/candidates/export${query}`, { token: account.token });

async function rowsOf(account: TestAccount, query = "") {
  const res = await exportCsv(account, query);
  expectStatus(res, 200, String(res.body).slice(0, 200));
  const [header, ...rows] = parseCsv(res.body);
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
}

describe("GET /v1/candidates/export", () => {
  it("answers CSV with a header row, newest first, each candidate as the list shows it now", async () => {
    const account = await createAccount();
    const api = client(account);
    const clock = useClock();
    const tricky = { note: 'says "hi", then\r\nleaves', ключ: "значение" };
    const a = freshAlias("exp");
    await api.post("/v1/candidates", {
      customer_uuid: "c,1",
      candidate_alias: a,
      contract: contract({ price: 0.0000001 }),
      metadata: tricky,
    });
    clock.advance(1000);
    const b = freshAlias("exp");
    await api.post("/v1/candidates", {
      customer_uuid: "c2",
      candidate_alias: b,
      contract: contract({ price: 49.5, review_window: 600 }),
    });
    clock.advance(1000);
    const hit = okBody(await api.post("/v1/events", { candidate_alias: b, type: "purchase", value: 150 }));

    const res = await exportCsv(account);
    expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("Content-Disposition")).toMatch(/^attachment; filename="candidates-.*\.csv"$/);
    expect(res.body.split("\r\n")[0]).toBe(
      "candidate_alias,customer_uuid,status,status_since,scheduled_outcome,price,activity_ends_at,review_ends_at,created_at,schema_id,metadata",
    );
    const rows = await rowsOf(account);
    const listed = okBody(await api.get("/v1/candidates")).data;
    expect(rows.map((r) => r.candidate_alias)).toEqual(listed.map((c) => c.candidate_alias));
    expect(rows[0]).toEqual({
      candidate_alias: b,
      customer_uuid: "c2",
      status: "PENDING",
      status_since: hit.candidate.status_since,
      scheduled_outcome: "CONFIRMED",
      price: "49.5",
      activity_ends_at: hit.candidate.activity_ends_at,
      review_ends_at: hit.candidate.review_ends_at,
      created_at: hit.candidate.created_at,
      schema_id: "",
      metadata: "{}",
    });
    expect(rows[1]).toMatchObject({
      customer_uuid: "c,1",
      status: "OPEN",
      scheduled_outcome: "",
      price: "0.0000001",
      review_ends_at: "",
    });
    expect(JSON.parse(rows[1].metadata)).toEqual(tricky);
  });

  it("takes the list's filters, metadata included, and refuses what the list refuses", async () => {
    const account = await createAccount();
    const api = client(account);
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      const alias = freshAlias("expf");
      await api.post("/v1/candidates", {
        customer_uuid: i < 2 ? "left" : "right",
        candidate_alias: alias,
        contract: contract(),
        metadata: { n: String(i % 2) },
      });
      made.push(alias);
    }
    await api.post("/v1/events", { candidate_alias: made[0], type: "purchase", value: 150 });
    for (const query of [
      "status=PENDING",
      "customer_uuid=right",
      "metadata[n]=1",
      "metadata[n]=0&customer_uuid=left",
      "status=OPEN&metadata[n]=0",
    ]) {
      const listed = okBody(await api.get(`/v1/candidates?${query}`)).data.map((c) => c.candidate_alias);
      expect(
        (await rowsOf(account, `?${query}`)).map((r) => r.candidate_alias),
        query,
      ).toEqual(listed);
      expect(listed.length, query).toBeGreaterThan(0);
    }
    for (const query of [
      "?status=open",
      "?limit=5",
      "?after=x",
      "?status_since_gte=2026-12-01T00:00:00Z&status_since_lt=2026-11-01T00:00:00Z",
      "?metadata[]=x",
    ]) {
      const res = await exportCsv(account, query);
      expectStatus(res, 400, query);
      expect((res.body as any).error.code, query).toBe("VALIDATION_ERROR");
    }
    // Another account's candidates are never in it.
    expect(await rowsOf(await createAccount())).toEqual([]);
  });

  it("streams every candidate once across many pages of the index", async () => {
    const account = await createAccount();
    const now = Date.now();
    const records: CandidateRecord[] = Array.from({ length: 1234 }, (_, i) => ({
      id: uuidv7(),
      accountId: account.id,
      alias: `bulk-${i}-${crypto.randomUUID()}`,
      customerUuid: "bulk",
      schemaId: null,
      contract: contract({ price: i }) as never,
      timeline: { createdAt: now, openUntil: now + 3_600_000, pendingUntil: now + 7_200_000, finalStatus: "FAILED" },
      metadata: { i: String(i) },
      version: 1,
    }));
    for (let i = 0; i < records.length; i += 100) {
      await dbOf(account).batch(
        records.slice(i, i + 100).map((r) => candidateIndexStatement(dbOf(account), r, "OPEN")),
      );
    }
    const rows = await rowsOf(account);
    expect(rows).toHaveLength(records.length);
    expect(rows.map((r) => r.candidate_alias)).toEqual(records.map((r) => r.alias).reverse());
    expect(rows.map((r) => r.price)).toEqual(records.map((_, i) => String(i)).reverse());
  });
});
