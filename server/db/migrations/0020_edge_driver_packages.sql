ALTER TABLE "edge_drivers" ADD COLUMN "file_sha256" text;
