// Prints {"<path relative to the root>": <HCL as JSON>, ...} for every .tf file under the given root.
// Exits non-zero, naming the file, on the first file that does not parse.
import { parse } from "@cdktf/hcl2json";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

async function* terraformFiles(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== ".terraform") {
      yield* terraformFiles(full);
    } else if (entry.isFile() && entry.name.endsWith(".tf")) {
      yield full;
    }
  }
}

const root = process.argv[2];
if (!root) {
  console.error("usage: node parse.mjs <terraform root>");
  process.exit(2);
}

const result = {};
for await (const file of terraformFiles(root)) {
  const relative = path.relative(root, file).split(path.sep).join("/");
  try {
    result[relative] = await parse(relative, await readFile(file, "utf8"));
  } catch (error) {
    console.error(`${relative}: ${error?.message ?? error}`);
    process.exit(1);
  }
}
process.stdout.write(JSON.stringify(result));
