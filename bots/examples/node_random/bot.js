// A random player for Node.js: reads one JSON message a line on stdin, answers on stdout.
"use strict";
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin, terminal: false });

function pick(list) {
  return list[Math.floor(Math.random() * list.length)];
}

function decide(message) {
  const legal = message.legal;
  if (message.decision === "discard") {
    const keep = message.state.hand.length - 8; // as many cards as the kitty held
    return legal.slice().sort(() => Math.random() - 0.5).slice(0, keep);
  }
  return pick(legal);
}

rl.on("line", (line) => {
  const message = JSON.parse(line);
  let reply = null;
  if (message.type === "hello") {
    reply = { id: message.id, type: "ready", name: "random (node)" };
  } else if (message.type === "act") {
    reply = { id: message.id, action: decide(message) };
  } else if (message.type === "match_end") {
    process.exit(0);
  }
  if (reply !== null) {
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
});
