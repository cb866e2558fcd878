-- A QoS 1 message's resend key (server/mqtt/resend.ts): its MQTT packet id and a CRC-32 of its payload, so a message a
-- device sends again after its PUBACK was lost is recognised as the one already stored. NULL for QoS 0 and the
-- platform's own rows. A nullable column without a default: no rewrite of the partitions.
ALTER TABLE "device_messages" ADD COLUMN IF NOT EXISTS "resend_key" bigint;
