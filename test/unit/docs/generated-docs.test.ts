import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { generatedDocs } from "../../../scripts/docs/generated-docs.js";
import { missingDescriptions } from "../../../scripts/docs/settings-reference.js";
import { SETTINGS_SOURCES } from "../../../scripts/docs/settings-sources.js";

const root = resolve(import.meta.dirname, "../../..");

describe("generated references", () => {
  for (const [path, expected] of Object.entries(generatedDocs())) {
    it(`${path} matches the schemas`, () => {
      const committed = readFileSync(resolve(root, path), "utf8");
      expect(committed === expected, `${path} is out of date with the schemas: run npm run docs`).toBe(true);
    });
  }

  it("every setting has a description", () => {
    expect(missingDescriptions(SETTINGS_SOURCES)).toEqual([]);
  });
});
