import { describe, expect, it } from "vitest";
import { backoffSeconds, parseRetrySchedule, retryDelaySeconds } from "../../src/notifications/retry-schedule";
import { answerProblem, judgeAttempt } from "../../src/notifications/attempt-outcome";
import { testEventJson } from "../../src/notifications/notification";

describe("the webhook retry schedule", () => {
  it("is by default the documented one: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27.5 h)", () => {
    const schedule = parseRetrySchedule("5s 5m 30m 2h 5h 10h 10h");
    expect(schedule).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);
    expect(schedule.reduce((a, b) => a + b) / 3600).toBeCloseTo(27.6, 1);
    expect(() => parseRetrySchedule("5s soon")).toThrow(/soon/);
  });

  it("adds up to 10 % jitter, and ends after the last", () => {
    const schedule = [5, 300];
    expect(retryDelaySeconds(schedule, 1, 0)).toBe(5);
    expect(retryDelaySeconds(schedule, 1, 0.5)).toBe(5.25); // to the millisecond: even 5 s is spread
    expect(retryDelaySeconds(schedule, 2, 0.999)).toBe(329.97);
    expect(retryDelaySeconds(schedule, 3, 0.5)).toBeNull();
  });

  it("backs a failing consumer off from 5 s, doubling, to an hour", () => {
    expect([1, 2, 3, 4, 10, 11, 30].map(backoffSeconds)).toEqual([5, 10, 20, 40, 2560, 3600, 3600]);
  });
});

describe("an attempt's answer", () => {
  const context = { attempt: 1, disabledBy: null, schedule: [5, 300], random: 0 };

  it("is delivered on a 2xx, and ends the delivery", () => {
    for (const status of [200, 204, 299]) {
      expect(judgeAttempt({ responseStatus: status, error: null }, context)).toEqual({
        status: "succeeded",
        error: null,
        retryInSeconds: null,
      });
    }
  });

  it("fails on anything else, retried on the schedule until it runs out", () => {
    expect(judgeAttempt({ responseStatus: 500, error: null }, context)).toEqual({
      status: "failed",
      error: "answered 500, not a 2xx",
      retryInSeconds: 5,
    });
    expect(judgeAttempt({ responseStatus: 301, error: null }, { ...context, attempt: 2 })).toMatchObject({
      status: "failed",
      retryInSeconds: 300,
    });
    expect(
      judgeAttempt({ responseStatus: null, error: "no response within 15 s" }, { ...context, attempt: 3 }),
    ).toEqual({ status: "failed", error: "no response within 15 s", retryInSeconds: null });
  });

  it("ends the delivery when the failure disabled the endpoint, and says why", () => {
    expect(judgeAttempt({ responseStatus: 410, error: null }, { ...context, disabledBy: "gone" })).toEqual({
      status: "failed",
      error: "answered 410 Gone: the endpoint is disabled",
      retryInSeconds: null,
    });
    // A 410 that did not disable it (the endpoint was changed while it was out) is retried.
    expect(judgeAttempt({ responseStatus: 410, error: null }, context)).toEqual({
      status: "failed",
      error: "answered 410, not a 2xx",
      retryInSeconds: 5,
    });
    expect(judgeAttempt({ responseStatus: 500, error: null }, { ...context, disabledBy: "already" })).toEqual({
      status: "failed",
      error: "answered 500, not a 2xx; the endpoint is disabled",
      retryInSeconds: null,
    });
    expect(judgeAttempt({ responseStatus: 503, error: null }, { ...context, disabledBy: "failing" })).toEqual({
      status: "failed",
      error: "answered 503, not a 2xx; the endpoint failed every attempt for 5 days and is disabled",
      retryInSeconds: null,
    });
  });

  it("is described in the log's words", () => {
    expect(answerProblem({ responseStatus: 204, error: null })).toBeNull();
    expect(answerProblem({ responseStatus: 404, error: null })).toBe("answered 404, not a 2xx");
    expect(answerProblem({ responseStatus: null, error: "request failed: refused" })).toBe("request failed: refused");
  });
});

describe("a test event", () => {
  it("is webhook.test with the endpoint's id, at the instant given", () => {
    expect(
      JSON.parse(testEventJson("test_1", "01936f20-1a2b-7c3d-8e4f-5a6b7c8d9e0f", Date.UTC(2026, 10, 22, 10, 20))),
    ).toEqual({
      id: "test_1",
      type: "webhook.test",
      timestamp: "2026-11-22T10:20:00.000Z",
      data: { webhook_endpoint_id: "01936f20-1a2b-7c3d-8e4f-5a6b7c8d9e0f" },
    });
  });
});
