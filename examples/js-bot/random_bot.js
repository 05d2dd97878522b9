// A random Parlour bot in JavaScript. It knows nothing of Parlour but the .proto files, which it
// loads at run time. Usage:
//   node random_bot.js --referee HOST:PORT --seat-token TOKEN [--protos DIR]
// It joins with its seat token, answers every decision with a random legal action (by index), and
// prints the match result as JSON when the match ends. A game without typed messages travels in the
// generic encoding (docs/protocol.md): its observation and actions are JSON text in the `json`
// field; the bot then reads the observation and answers with the whole action, as JSON.
"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

function argument(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const referee = argument("--referee");
const seatToken = argument("--seat-token");
const protos = argument("--protos", path.join(__dirname, "..", "..", "protos"));
if (!referee || !seatToken) {
  console.error("usage: node random_bot.js --referee HOST:PORT --seat-token TOKEN [--protos DIR]");
  process.exit(2);
}

const PROTOCOL_VERSION = 1;
const definition = protoLoader.loadSync(path.join(protos, "parlour/v1/referee.proto"), {
  includeDirs: [protos],
  keepCase: true,   // field names exactly as in the .proto files
  longs: String,    // 64-bit integers as decimal strings (decision ids, seeds): echo them unchanged
  defaults: true,   // zero values are not sent on the wire: fill them in (seat 0, resumed false, ...)
  oneofs: true,     // each oneof's set field is named in a property of the oneof's name
});
const parlour = grpc.loadPackageDefinition(definition).parlour.v1;
const client = new parlour.Referee(referee, grpc.credentials.createInsecure());

// A small seeded generator, so a run can be repeated (the seed is the bot's own, from MatchStart).
let state = 1;
function random() {
  state = (state * 1103515245 + 12345) % 2147483648;
  return state / 2147483648;
}

const stream = client.Play();
stream.write({ hello: { protocol_version: PROTOCOL_VERSION, seat_token: seatToken } });

stream.on("data", (message) => {
  if (message.message === "start") {
    state = Number(BigInt(message.start.bot_seed) % 2147483648n) || 1;
  } else if (message.message === "decision") {
    const decision = message.decision;
    const index = Math.floor(random() * decision.legal_actions.length);
    const chosen = decision.legal_actions[index];
    const answer = { protocol_version: PROTOCOL_VERSION, decision_id: decision.decision_id, index };
    let text = `chose ${chosen.label}`;
    if (decision.observation.game === "json") {
      // the generic encoding: the observation is the engine's JSON; the action goes back whole
      const observation = JSON.parse(decision.observation.json);
      const action = JSON.parse(chosen.action.json);
      delete answer.index;
      answer.action = { json: JSON.stringify(action) };
      text += ` as ${JSON.stringify(action)} (observation: round ${observation.round}, seat ${observation.seat})`;
    }
    // the log line first: one sent after the match's last answer may come after its end
    stream.write({ log: { protocol_version: PROTOCOL_VERSION, decision_id: decision.decision_id, text } });
    stream.write({ answer });
  } else if (message.message === "fault") {
    console.error(`fault on decision ${message.fault.decision_id}: ${message.fault.reason}`);
  } else if (message.message === "end") {
    console.log(message.end.result_json);
    stream.end();
  }
});
stream.on("error", (error) => {
  console.error(`referee error: ${error.code} ${error.details}`);
  process.exit(1);
});
stream.on("end", () => process.exit(0));
