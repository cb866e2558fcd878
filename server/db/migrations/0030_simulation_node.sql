-- The cluster member running a simulation (server/cluster/simulations.ts): NULL while no member has taken it (one
-- process, or a running simulation waiting for a member); a member that dies leaves its simulations to a survivor.
ALTER TABLE "simulations" ADD COLUMN IF NOT EXISTS "node_id" text;
