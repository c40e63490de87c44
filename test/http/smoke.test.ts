import { describe, expect, it } from "vitest";
import { client, contract, createAccount, freshAlias } from "../support/api";

describe("smoke", () => {
  it("creates a schema, a candidate, an event, and reads them", async () => {
    const api = client(await createAccount());
    const schema = await api.post("/v1/schemas", { contract: contract() });
    expect(schema.status).toBe(201);
    const alias = freshAlias();
    const cand = await api.post("/v1/candidates", { customer_uuid: "c1", candidate_alias: alias });
    expect(cand.status, JSON.stringify(cand.body)).toBe(201);
    const ev = await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
    expect(ev.status, JSON.stringify(ev.body)).toBe(201);
    expect(ev.body.candidate.status).toBe("PENDING");
    const read = await api.get(`/v1/candidates/${alias}`);
    expect(read.body.events).toHaveLength(1);
    const list = await api.get(`/v1/candidates?status=PENDING`);
    expect(list.body.data.map((c: any) => c.candidate_alias)).toEqual([alias]);
  });
});
