-- Keeps product_counts.total equal to the number of products, so the unfiltered product list answers its total
-- without scanning the table. Statement-level triggers with transition tables: one UPDATE per statement, however
-- many rows it touched (the bench inserts 100,000 in one statement). Names are unqualified on purpose: they
-- resolve through search_path, so the same SQL works in public and in a per-test schema.
INSERT INTO "product_counts" ("id", "total") SELECT 1, count(*) FROM "products";
--> statement-breakpoint
CREATE FUNCTION product_counts_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE product_counts SET total = total + (SELECT count(*) FROM inserted) WHERE id = 1;
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION product_counts_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE product_counts SET total = total - (SELECT count(*) FROM deleted) WHERE id = 1;
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION product_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE product_counts SET total = 0 WHERE id = 1;
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER products_count_insert AFTER INSERT ON "products"
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION product_counts_on_insert();
--> statement-breakpoint
CREATE TRIGGER products_count_delete AFTER DELETE ON "products"
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION product_counts_on_delete();
--> statement-breakpoint
CREATE TRIGGER products_count_truncate AFTER TRUNCATE ON "products"
    FOR EACH STATEMENT EXECUTE FUNCTION product_counts_on_truncate();
