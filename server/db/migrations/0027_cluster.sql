-- Cluster membership (docs/deployment.md "Losing a process"): each server process of a cluster (REDIS_URL) registers
-- here and heartbeats; a survivor deletes a member silent for NODE_TIMEOUT and cleans up after it. `figures` is the
-- member's share of the live figures (connections, messages per second, AMQP consumers), published with each
-- heartbeat so any process answers for the whole cluster. `amqp_owner` names the member's claims in amqp_queue.
CREATE TABLE IF NOT EXISTS "cluster_nodes" (
	"node_id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"amqp_owner" text,
	"figures" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
-- The member holding a device's connection (set with ONLINE by the broker's presence in a cluster; NULL in one
-- process), so the devices of a member that died are found and marked OFFLINE. Only ONLINE rows carry one.
ALTER TABLE "devices" ADD COLUMN IF NOT EXISTS "node_id" text;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "devices_node_id_idx" ON "devices" ("node_id") WHERE "node_id" IS NOT NULL;
