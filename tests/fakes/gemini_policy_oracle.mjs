// Gemini CLI's own policy engine as an oracle: reads {bundle, runs: [{home, settings, mode, interactive, calls}]}
// as JSON on stdin and prints, per run, one decision per call ("allow" | "deny" | "ask_user"). A run's home is
// the GEMINI_CLI_HOME whose .gemini/policies holds the user rules under test.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const input = JSON.parse(readFileSync(0, "utf-8"));
const bundle = input.bundle;
const gemini = readdirSync(bundle).find((name) => /^gemini-[A-Z0-9]+\.js$/.test(name) &&
  readFileSync(join(bundle, name), "utf-8").includes("createPolicyEngineConfig2"));
const chunk = readFileSync(join(bundle, gemini), "utf-8").match(/from "\.\/(chunk-[A-Z0-9]+\.js)"/g)
  .map((line) => line.slice(8, -1))
  .find((name) => readFileSync(join(bundle, name), "utf-8").includes("var PolicyEngine = class"));
const core = await import(pathToFileURL(join(bundle, chunk)).href);
const out = [];
for (const run of input.runs) {
  process.env.GEMINI_CLI_HOME = run.home;
  const mode = run.mode ?? "default";
  const config = await core.createPolicyEngineConfig(run.settings ?? {}, mode, undefined, run.interactive ?? true);
  const engine = new core.PolicyEngine({ ...config, approvalMode: mode });
  const decisions = [];
  for (const call of run.calls) {
    const result = await engine.check({ name: call.name, args: call.args ?? {} }, call.server ?? undefined);
    decisions.push(result.decision);
  }
  out.push(decisions);
}
process.stdout.write("\n" + JSON.stringify(out) + "\n");
process.exit(0);
