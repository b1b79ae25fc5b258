"""psycopg2 + SQLAlchemy 1.4 inspect() against a server; prints one JSON document."""
import json
import sys

import sqlalchemy

engine = sqlalchemy.create_engine(sys.argv[1])
with engine.begin() as conn:
    conn.execute(sqlalchemy.text(
        "CREATE TABLE widgets (id bigint PRIMARY KEY, name varchar(30) NOT NULL, price numeric(8,2), made timestamp)"))
    conn.execute(sqlalchemy.text("CREATE SCHEMA inv"))
    conn.execute(sqlalchemy.text("CREATE TABLE inv.stock (sku text, bin integer, qty integer, PRIMARY KEY (sku, bin))"))
    conn.execute(sqlalchemy.text("INSERT INTO widgets VALUES (1, 'w', 2.50, '2024-01-01 00:00:00')"))

insp = sqlalchemy.inspect(engine)
out = {
    "schemas": sorted(s for s in insp.get_schema_names() if s in ("public", "inv", "information_schema")),
    "default_schema": insp.default_schema_name,
    "tables": {s: sorted(insp.get_table_names(schema=s)) for s in ("public", "inv")},
    "columns": [
        {"name": c["name"], "type": str(c["type"]), "nullable": c["nullable"]}
        for c in insp.get_columns("widgets")
    ],
    "pk": insp.get_pk_constraint("widgets"),
    "pk_composite": insp.get_pk_constraint("stock", schema="inv")["constrained_columns"],
}
with engine.connect() as conn:
    out["rows"] = [list(map(str, r)) for r in conn.execute(sqlalchemy.text("SELECT id, name, price FROM widgets"))]
print(json.dumps(out, sort_keys=True))
