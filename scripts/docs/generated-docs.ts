import { openApiDocument } from "../../worker/openapi/openapi-document.js";
import { apiReference } from "./api-reference.js";
import { settingsReference } from "./settings-reference.js";
import { SETTINGS_SOURCES } from "./settings-sources.js";

/** The generated reference pages, by their path in the repository. `npm run docs` writes them; a test compares. */
export function generatedDocs(): Record<string, string> {
  return {
    "docs/configuration.md": settingsReference(SETTINGS_SOURCES),
    "docs/api.md": apiReference(openApiDocument() as Parameters<typeof apiReference>[0]),
  };
}
