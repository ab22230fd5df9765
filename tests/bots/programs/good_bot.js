// A minimal correct bot for Node: the first legal action.
const readline = require("readline");
let kitty = 0;
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.type === "hello") {
    kitty = m.rules.kitty;
    process.stdout.write(JSON.stringify({ id: m.id, type: "ready", name: "node-first" }) + "\n");
  } else if (m.type === "act") {
    let action = m.legal[0];
    if (m.decision === "discard") action = m.legal.slice(0, kitty);
    if (m.decision === "misdeal") action = false;
    process.stdout.write(JSON.stringify({ id: m.id, action }) + "\n");
  } else if (m.type === "match_end") {
    rl.close();
  }
});
