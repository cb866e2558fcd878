-- Extra indexes and triggers for issue 4 (device detail: tags, files, sub-devices, telemetry) that schema.ts cannot express. Names resolve through search_path.
SELECT 1;
