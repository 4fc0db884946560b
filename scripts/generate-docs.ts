import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { generatedDocs } from "./docs/generated-docs.js";

// `npm run docs`: writes the references generated from the schemas (docs/configuration.md, docs/api.md).
const root = resolve(import.meta.dirname, "..");
for (const [path, text] of Object.entries(generatedDocs())) {
  writeFileSync(resolve(root, path), text);
  console.log(`wrote ${path}`);
}
