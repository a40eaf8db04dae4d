// Parses every ```mermaid block of the given Markdown files with mermaid itself, the library
// GitHub renders them with, so a diagram that would show as an error box fails here first.
//
//     cd lab/diagrams && npm install && node check.mjs ../../docs/*.md
//
// mermaid needs a DOM to load; jsdom gives it one (parsing needs no layout, so no browser).
import fs from "node:fs";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });

let diagrams = 0;
for (const file of process.argv.slice(2)) {
  const blocks = [...fs.readFileSync(file, "utf8").matchAll(/```mermaid\n([\s\S]*?)```/g)];
  for (const [i, block] of blocks.entries()) {
    diagrams += 1;
    try {
      const parsed = await mermaid.parse(block[1]);
      console.log(`${file} diagram ${i + 1}: ${parsed.diagramType}, parses`);
    } catch (error) {
      console.log(`${file} diagram ${i + 1}: ${String(error.message ?? error)}`);
      process.exitCode = 1;
    }
  }
}
if (diagrams === 0) {
  console.log("no mermaid diagrams found: give the Markdown files to check");
  process.exitCode = 1;
}
