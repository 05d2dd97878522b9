"""Records everything its seat receives (to $AUDIT_FILE, one JSON line each) and plays at random."""
import json
import os

from bots_sdk import RandomBot


class AuditBot(RandomBot):
    def on_match_start(self, game, seat, options, seed):
        self.file = open(os.environ["AUDIT_FILE"], "w")
        self.write({"start": {"game": game, "seat": seat, "options": options, "bot_seed": seed}})

    def write(self, data):
        self.file.write(json.dumps(data) + "\n")
        self.file.flush()

    def decide(self, decision):
        self.write({"decision_id": decision.decision_id, "observation": decision.observation,
                    "legal_actions": decision.legal_actions, "labels": decision.labels})
        return super().decide(decision)
