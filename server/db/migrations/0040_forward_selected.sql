-- A route's count of messages its flow's SQL selected, moved with its position (server/forward/lease.ts), so the flow
-- list's 已选中 is the cluster's and survives a restart like 已发送 (it was this process's count since it started).
ALTER TABLE "forward_routes" ADD COLUMN IF NOT EXISTS "selected" bigint DEFAULT 0 NOT NULL;
