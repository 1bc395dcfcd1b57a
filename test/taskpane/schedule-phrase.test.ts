// The pane's schedule phrases → cron (issue 23): what the user says, the cron sent, the words shown,
// and the once-an-hour rule explained before anything is sent.
import { describe, expect, it } from "vitest";
import { describeCron, scheduleFromPhrase, splitQuestion } from "../../src/taskpane/chat/schedule-phrase";
import { cronShapeProblem } from "../../src/api/schemas/scheduled-tasks";

const build = (s: string) => scheduleFromPhrase(s, cronShapeProblem);

describe("scheduleFromPhrase", () => {
  it.each([
    ["every Monday at 8:00", "0 8 * * 1", "every Monday at 08:00"],
    ["Every monday at 8am", "0 8 * * 1", "every Monday at 08:00"],
    ["on Mondays and Thursdays at 17:30", "30 17 * * 1,4", "every Monday and Thursday at 17:30"],
    ["every mon, wed, fri at 6:05 pm", "5 18 * * 1,3,5", "every Monday, Wednesday and Friday at 18:05"],
    ["weekdays at 7:30", "30 7 * * 1-5", "every weekday at 07:30"],
    ["daily at noon", "0 12 * * *", "every day at 12:00"],
    ["every day", "0 9 * * *", "every day at 09:00"],
    ["hourly at :15", "15 * * * *", "every hour at :15"],
    ["every hour", "0 * * * *", "every hour at :00"],
    ["every 6 hours", "0 */6 * * *", "every 6 hours at :00"],
    ["on the 1st of every month at 6:00", "0 6 1 * *", "on the 1st of every month at 06:00"],
    ["monthly on the 15th at 9", "0 9 15 * *", "on the 15th of every month at 09:00"],
    ["weekly", "0 9 * * 1", "every Monday at 09:00"],
    ["0 8 * * 1", "0 8 * * 1", "every Monday at 08:00"],
  ])("%j → %s", (phrase, cron, text) => {
    expect(build(phrase)).toEqual({ ok: true, cron, text });
    expect(describeCron(cron)).toBe(text);
  });

  it("on demand: no cron", () => {
    expect(build("")).toMatchObject({ ok: true, cron: null });
    expect(build("on demand")).toMatchObject({ ok: true, cron: null });
  });

  it("more often than once an hour is explained, not sent", () => {
    for (const p of ["every 15 minutes", "every minute", "every half hour", "twice an hour", "*/5 * * * *", "0,30 * * * *"]) {
      const r = build(p);
      expect(r.ok, p).toBe(false);
      expect(!r.ok && r.problem, p).toMatch(/once an hour/);
    }
  });

  it("nonsense and bad times get a reason", () => {
    expect(build("whenever it rains")).toMatchObject({ ok: false, problem: expect.stringMatching(/did not understand/) });
    expect(build("every monday at 25:00")).toMatchObject({ ok: false, problem: expect.stringMatching(/not a time/) });
  });
});

describe("splitQuestion", () => {
  it("takes a trailing schedule off the question", () => {
    expect(splitQuestion("revenue by month every Monday at 8:00", cronShapeProblem)).toEqual({
      prompt: "revenue by month",
      when: "every Monday at 8:00",
    });
    expect(splitQuestion("Orders by status, weekdays at 7:30", cronShapeProblem)).toEqual({
      prompt: "Orders by status",
      when: "weekdays at 7:30",
    });
  });
  it("leaves a question without a schedule alone (“every customer” is not a schedule)", () => {
    expect(splitQuestion("revenue for every customer", cronShapeProblem)).toEqual({ prompt: "revenue for every customer", when: null });
    expect(splitQuestion("revenue by month", cronShapeProblem)).toEqual({ prompt: "revenue by month", when: null });
  });
});
