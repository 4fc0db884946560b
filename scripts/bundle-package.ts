/**
 * The pack-time build of the installable packages (device-agent/, bridge/, cli/): each package's
 * TypeScript and everything it imports bundled into one ES module in its dist/, so the installed
 * package needs Node alone (no compiler, no bundling at start). The agent's package also gets a
 * copy of the top-level skills/, which it loads by default. Run by each package's `prepack`
 * (`npm pack -w device-agent`), with the package folder as working directory; `--clean`
 * (its `postpack`) removes what the build made. The bench builds the agent with bundlePackage().
 */
import { cpSync, rmSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { build } from "esbuild";

type PackageBuild = {
  entry: string;
  outfile: string;
  /** copied into the package: source (from the package folder) → destination inside it */
  copy?: Record<string, string>;
  define?: Record<string, string>;
};

const PACKAGES: Record<string, PackageBuild> = {
  "device-agent": {
    entry: "src/main.ts",
    outfile: "dist/edgeloop-agent.mjs",
    copy: { "../skills": "skills" },
    // bundled-skills.ts: where the copied skills are, from the bundle's own URL
    define: { EDGELOOP_BUNDLED_SKILLS: JSON.stringify("../skills") },
  },
  bridge: { entry: "src/main.ts", outfile: "dist/edgeloop-bridge.mjs" },
  cli: { entry: "main.ts", outfile: "dist/edgeloop.mjs" },
};

/** Builds the package in `packageDir` (device-agent, bridge or cli) into `outDir` (default: itself). */
export async function bundlePackage(packageDir: string, outDir = packageDir): Promise<string> {
  const spec = PACKAGES[basename(resolve(packageDir))];
  if (!spec) throw new Error(`no bundle defined for ${packageDir}`);
  const outfile = join(outDir, spec.outfile);
  await build({
    entryPoints: [join(packageDir, spec.entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    // No comments or indentation; ASCII output (esbuild's default), since one "→" in a comment
    // would make V8 hold the whole source as two bytes a character for the daemon's life.
    minifyWhitespace: true,
    // ws tries these optional native add-ons and does without them.
    external: ["bufferutil", "utf-8-validate"],
    define: spec.define ?? {},
    // Bundled CommonJS packages require() Node's built-ins.
    banner: {
      js: 'import { createRequire as __edgeloopRequire } from "node:module"; const require = __edgeloopRequire(import.meta.url);',
    },
  });
  for (const [from, to] of Object.entries(spec.copy ?? {})) {
    rmSync(join(outDir, to), { recursive: true, force: true });
    cpSync(join(packageDir, from), join(outDir, to), { recursive: true });
  }
  return outfile;
}

/** Removes what bundlePackage made in the package folder, so the repository runs from source. */
function clean(packageDir: string): void {
  const spec = PACKAGES[basename(resolve(packageDir))];
  if (!spec) throw new Error(`no bundle defined for ${packageDir}`);
  rmSync(join(packageDir, "dist"), { recursive: true, force: true });
  for (const to of Object.values(spec.copy ?? {})) rmSync(join(packageDir, to), { recursive: true, force: true });
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename ?? "")) {
  if (process.argv.includes("--clean")) clean(process.cwd());
  else await bundlePackage(process.cwd());
}
