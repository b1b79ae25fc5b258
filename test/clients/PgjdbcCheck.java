import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

/**
 * pgjdbc 42.5 against a server: DatabaseMetaData, prepared upserts past
 * prepareThreshold (so the driver switches to server-prepared, binary
 * transfer), and a fetchSize cursor. Prints one "ok <check>" line per check;
 * any failure throws and exits non-zero with the reason.
 */
public class PgjdbcCheck {
  static void check(boolean cond, String what) {
    if (!cond) throw new AssertionError(what);
  }

  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    p.setProperty("user", args[1]);
    p.setProperty("prepareThreshold", "2");
    try (Connection c = DriverManager.getConnection(args[0], p)) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE orders (o_id bigint PRIMARY KEY, o_cust integer NOT NULL, o_amount numeric(12,2), o_ts timestamptz, o_note text)");
        s.execute("CREATE SCHEMA sales");
        s.execute("CREATE TABLE sales.items (id integer PRIMARY KEY, name varchar(40))");
      }
      DatabaseMetaData md = c.getMetaData();

      Set<String> schemas = new HashSet<>();
      try (ResultSet rs = md.getSchemas()) { while (rs.next()) schemas.add(rs.getString("TABLE_SCHEM")); }
      check(schemas.containsAll(List.of("public", "sales", "pg_catalog", "information_schema")), "getSchemas: " + schemas);
      System.out.println("ok getSchemas");

      List<String> tables = new ArrayList<>();
      try (ResultSet rs = md.getTables(null, null, "%", new String[] {"TABLE"})) {
        while (rs.next()) tables.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + ":" + rs.getString("TABLE_TYPE"));
      }
      check(tables.equals(List.of("public.orders:TABLE", "sales.items:TABLE")), "getTables: " + tables);
      System.out.println("ok getTables");

      List<String> cols = new ArrayList<>();
      try (ResultSet rs = md.getColumns(null, "public", "orders", "%")) {
        while (rs.next()) cols.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("DATA_TYPE") + ":" + rs.getString("TYPE_NAME") + ":" + rs.getInt("COLUMN_SIZE") + ":" + rs.getInt("DECIMAL_DIGITS") + ":" + rs.getString("IS_NULLABLE") + ":" + rs.getInt("ORDINAL_POSITION"));
      }
      check(cols.equals(List.of(
          "o_id:-5:int8:19:0:NO:1",
          "o_cust:4:int4:10:0:NO:2",
          "o_amount:2:numeric:12:2:YES:3",
          "o_ts:93:timestamptz:35:6:YES:4",
          "o_note:12:text:2147483647:0:YES:5")), "getColumns: " + cols);
      System.out.println("ok getColumns");

      List<String> pk = new ArrayList<>();
      try (ResultSet rs = md.getPrimaryKeys(null, "public", "orders")) {
        while (rs.next()) pk.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("KEY_SEQ") + ":" + rs.getString("PK_NAME"));
      }
      check(pk.equals(List.of("o_id:1:orders_pkey")), "getPrimaryKeys: " + pk);
      System.out.println("ok getPrimaryKeys");

      List<String> idx = new ArrayList<>();
      try (ResultSet rs = md.getIndexInfo(null, "public", "orders", false, true)) {
        while (rs.next()) idx.add(rs.getString("INDEX_NAME") + ":" + rs.getBoolean("NON_UNIQUE") + ":" + rs.getString("COLUMN_NAME") + ":" + rs.getInt("ORDINAL_POSITION"));
      }
      check(idx.equals(List.of("orders_pkey:false:o_id:1")), "getIndexInfo: " + idx);
      System.out.println("ok getIndexInfo");

      Map<String, Integer> types = new HashMap<>();
      try (ResultSet rs = md.getTypeInfo()) { while (rs.next()) types.put(rs.getString("TYPE_NAME"), rs.getInt("DATA_TYPE")); }
      check(Integer.valueOf(Types.BIGINT).equals(types.get("int8")), "getTypeInfo int8: " + types.get("int8"));
      check(Integer.valueOf(Types.VARCHAR).equals(types.get("varchar")), "getTypeInfo varchar: " + types.get("varchar"));
      check(Integer.valueOf(Types.NUMERIC).equals(types.get("numeric")), "getTypeInfo numeric: " + types.get("numeric"));
      System.out.println("ok getTypeInfo");

      c.setAutoCommit(false);
      String upsert = "insert into orders(o_id,o_cust,o_amount,o_ts,o_note) values (?,?,?,?,?) on conflict (o_id) do update set o_amount = excluded.o_amount";
      try (PreparedStatement ps = c.prepareStatement(upsert)) {
        for (int round = 0; round < 2; round++) {
          for (int i = 1; i <= 7; i++) {
            ps.setLong(1, i);
            ps.setInt(2, i % 3);
            ps.setBigDecimal(3, new BigDecimal(i + (round == 0 ? ".25" : ".75")));
            ps.setTimestamp(4, new Timestamp(1700000000000L + i));
            ps.setString(5, "n" + i);
            check(ps.executeUpdate() == 1, "upsert count");
          }
        }
        check(ps.unwrap(org.postgresql.PGStatement.class).isUseServerPrepare(), "upserts did not switch to a server-prepared statement");
      }
      c.commit();
      System.out.println("ok upserts");

      try (PreparedStatement ps = c.prepareStatement("select o_id, o_amount, o_ts, o_note from orders where o_cust = ? order by o_id")) {
        for (int round = 0; round < 4; round++) {
          ps.setInt(1, 1);
          List<String> got = new ArrayList<>();
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) got.add(rs.getLong(1) + ":" + rs.getBigDecimal(2) + ":" + rs.getTimestamp(3).getTime() + ":" + rs.getString(4));
          }
          check(got.equals(List.of("1:1.75:1700000000001:n1", "4:4.75:1700000000004:n4", "7:7.75:1700000000007:n7")), "binary select round " + round + ": " + got);
        }
      }
      System.out.println("ok binary selects");

      try (Statement s = c.createStatement()) {
        s.setFetchSize(2);
        List<Long> ids = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("select o_id from orders order by o_id")) { while (rs.next()) ids.add(rs.getLong(1)); }
        check(ids.equals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L)), "fetchSize cursor: " + ids);
      }
      c.commit();
      System.out.println("ok fetchSize cursor");
    }
  }
}
