import { describe, expect, it } from "vitest";
import { isUuid } from "../../src/domain/uuid";

describe("isUuid", () => {
  it("takes a UUID in its usual text form, in either case", () => {
    for (const id of [
      "01936f0e-8a7b-7c4d-9e2f-3a4b5c6d7e8f",
      "01936F0E-8A7B-7C4D-9E2F-3A4B5C6D7E8F",
      "00000000-0000-0000-0000-000000000000",
    ]) {
      expect(isUuid(id), id).toBe(true);
    }
  });

  it("refuses anything else: other forms, a character too many or too few, text around it", () => {
    for (const id of [
      "",
      "01936f0e8a7b7c4d9e2f3a4b5c6d7e8f",
      "{01936f0e-8a7b-7c4d-9e2f-3a4b5c6d7e8f}",
      "01936f0e-8a7b-7c4d-9e2f-3a4b5c6d7e8",
      "01936f0e-8a7b-7c4d-9e2f-3a4b5c6d7e8f0",
      "01936f0e-8a7b-7c4d-9e2f-3a4b5c6d7e8g",
      "01936f0e-8a7b-7c4d-9e2f-3a4b5c6d7e8f\n",
      " 01936f0e-8a7b-7c4d-9e2f-3a4b5c6d7e8f",
      "../01936f0e-8a7b-7c4d-9e2f-3a4b5c6d7e8f",
    ]) {
      expect(isUuid(id), JSON.stringify(id)).toBe(false);
    }
  });
});
