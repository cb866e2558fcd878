-- Fencing a member's writes (docs/deployment.md "Losing a process"). `incarnation` changes each time a member
-- registers, so also when it registers again after the others declared it lost. A member's message batches name the
-- incarnation they were accepted under and the lease (NODE_TIMEOUT / 2); cluster_fence raises, and so fails the whole
-- batch statement, when that incarnation is no longer registered or its heartbeat is older than the lease by the
-- database's clock. A process resumed after a long pause then stores nothing it had accepted before: its devices,
-- unacknowledged, sent those messages again to the member that took them.
ALTER TABLE "cluster_nodes" ADD COLUMN IF NOT EXISTS "incarnation" text;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION cluster_fence(member text, member_incarnation text, lease_ms integer) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM cluster_nodes
        WHERE node_id = member AND incarnation = member_incarnation
            AND heartbeat_at >= now() - make_interval(secs => lease_ms / 1000.0)
    ) THEN
        RAISE EXCEPTION '集群成员 % 的租约已失效，不再写入', member USING ERRCODE = 'P0901';
    END IF;
    RETURN true;
END
$$;
