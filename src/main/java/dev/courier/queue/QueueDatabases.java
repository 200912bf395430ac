package dev.courier.queue;

import dev.courier.platform.DatabaseClock;
import dev.courier.platform.Dialect;
import dev.courier.platform.SchemaMigration;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * The databases that hold queues: Courier's own ({@code courier}, {@code jdbc/courier}) and those named in
 * {@code courier.queue.databases} ({@code name=jndi-name}, comma-separated: the applications' own databases, each
 * a datasource of this server). Each gets Courier's schema at start (the same migrations), and each queue lives
 * in exactly one of them: its messages are rows beside the application's own, sent and acknowledged in the
 * application's transactions there (the library, the SQL API), and served by this server (REST, sweeper, metrics,
 * dead letters) as any other queue.
 *
 * <p>Where a queue lives is looked up on its databases and remembered for {@code courier.queue.settings-ttl} (a
 * queue dropped in one database and made in another is found again within it); with Courier's database alone
 * there is nothing to look up.
 */
@ApplicationScoped
class QueueDatabases {

    /** Courier's own database's name. */
    static final String COURIER = "courier";

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");

    /** Prefix of a message's entry among a transaction's homes (a queue's is its name, which has no colon). */
    private static final String MESSAGE = "message:";

    @Resource(lookup = "jdbc/courier")
    private DataSource courier;

    @Inject
    private SchemaMigration schema;

    @Inject
    private DatabaseClock clock;

    @Inject
    private QueueSettings settings;

    @Inject
    private QueueLookup lookup;

    @Resource
    private TransactionSynchronizationRegistry transactions;

    private volatile Map<String, QueueDatabase> databases;

    private record Home(QueueDatabase database, long readAt) {}

    private final Map<QueueName, Home> homes = new ConcurrentHashMap<>();

    /**
     * Key of the homes learned in the current transaction (queues it made, messages it sent or leased): a lookup
     * runs outside it and cannot see them.
     */
    private final Object learned = new Object();

    /** Every queue database, Courier's first. */
    List<QueueDatabase> all() {
        return List.copyOf(databases().values());
    }

    /** Courier's own database. */
    QueueDatabase courier() {
        return databases().get(COURIER);
    }

    /** The database named {@code name} in configuration, if there is one. */
    Optional<QueueDatabase> named(String name) {
        return Optional.ofNullable(databases().get(name));
    }

    /** The dialect of every queue database (they are of one kind: see {@link #databases()}). */
    QueueDialect dialect() {
        return courier().dialect();
    }

    /**
     * The database that holds {@code queue}.
     *
     * @throws QueueNotFoundException 404 when none does
     */
    QueueDatabase of(QueueName queue) {
        Map<String, QueueDatabase> all = databases();
        if (all.size() == 1) {
            return courier();
        }
        QueueDatabase here = learned(false).get(queue.value());
        if (here != null) {
            return here;
        }
        Home home = homes.get(queue);
        if (home != null && System.nanoTime() - home.readAt() <= settings.settingsTtl.toNanos()) {
            return home.database();
        }
        QueueDatabase found =
                lookup.holding(List.copyOf(all.values()), queue).orElseThrow(() -> new QueueNotFoundException(queue));
        homes.put(queue, new Home(found, System.nanoTime()));
        return found;
    }

    /**
     * The database that holds {@code queue}, if one does, looked up now; with Courier's database alone, that one
     * (whether it holds the queue is for the caller's own read).
     */
    Optional<QueueDatabase> find(QueueName queue) {
        Map<String, QueueDatabase> all = databases();
        if (all.size() == 1) {
            return Optional.of(courier());
        }
        QueueDatabase here = learned(false).get(queue.value());
        return here != null ? Optional.of(here) : lookup.holding(List.copyOf(all.values()), queue);
    }

    /**
     * The database holding the message {@code id}, for the operations that name a lease token and no queue;
     * Courier's when none does (the operation then finds the message gone).
     */
    QueueDatabase holdingMessage(String id) {
        Map<String, QueueDatabase> all = databases();
        if (all.size() == 1) {
            return courier();
        }
        QueueDatabase here = learned(false).get(MESSAGE + id);
        return here != null
                ? here
                : lookup.holdingMessage(List.copyOf(all.values()), id).orElse(courier());
    }

    /** Notes, for the rest of the current transaction, that it made {@code queue} in {@code database}. */
    void made(QueueName queue, QueueDatabase database) {
        if (databases().size() > 1 && transactions.getTransactionKey() != null) {
            learned(true).put(queue.value(), database);
        }
    }

    /** Notes, for the rest of the current transaction, that it sent or leased the messages {@code ids} there. */
    void touched(List<String> ids, QueueDatabase database) {
        if (databases().size() > 1 && transactions.getTransactionKey() != null) {
            Map<String, QueueDatabase> here = learned(true);
            ids.forEach(id -> here.put(MESSAGE + id, database));
        }
    }

    /**
     * What the current transaction learned; {@code keep}: a map kept with the transaction to add to, else what is
     * there (a read on the hot path keeps nothing).
     */
    @SuppressWarnings("unchecked")
    private Map<String, QueueDatabase> learned(boolean keep) {
        Map<String, QueueDatabase> here = transactions.getTransactionKey() == null
                ? null
                : (Map<String, QueueDatabase>) transactions.getResource(learned);
        if (here == null) {
            here = new HashMap<>();
            if (keep) {
                transactions.putResource(learned, here);
            }
        }
        return here;
    }

    /** Forgets where {@code queue} lives (dropped, or not found where it was). */
    void forget(QueueName queue) {
        homes.remove(queue);
    }

    private Map<String, QueueDatabase> databases() {
        Map<String, QueueDatabase> current = databases;
        if (current == null) {
            synchronized (this) {
                current = databases;
                if (current == null) {
                    current = open();
                    databases = current;
                }
            }
        }
        return current;
    }

    /** Courier's database, then each configured one, migrated; all of Courier's database's kind. */
    private Map<String, QueueDatabase> open() {
        Dialect kind = schema.dialect();
        Map<String, QueueDatabase> opened = new LinkedHashMap<>();
        opened.put(COURIER, new QueueDatabase(COURIER, courier, dialect(kind), clock.readings(), transactions));
        for (Map.Entry<String, String> named :
                configured(settings.databases.orElse("")).entrySet()) {
            DataSource dataSource = dataSource(named.getKey(), named.getValue());
            SchemaMigration.Applied applied = schema.migrateOther(dataSource);
            if (applied.dialect() != kind) {
                throw new IllegalStateException("queue database " + named.getKey() + " is " + applied.dialect()
                        + " and Courier's is " + kind + ": the queue databases must be of one kind");
            }
            opened.put(
                    named.getKey(),
                    new QueueDatabase(named.getKey(), dataSource, dialect(kind), clock.of(dataSource), transactions));
        }
        return Collections.unmodifiableMap(opened);
    }

    /**
     * {@code courier.queue.databases} as name → JNDI name, in order.
     *
     * @throws IllegalArgumentException for an entry that is not {@code name=jndi-name}, a name out of
     *     {@code [a-z][a-z0-9_]{0,62}}, {@code courier}, or a name given twice
     */
    static Map<String, String> configured(String value) {
        Map<String, String> named = new LinkedHashMap<>();
        for (String entry : value.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            int equals = entry.indexOf('=');
            String name = equals < 0 ? "" : entry.substring(0, equals).trim();
            String jndi = equals < 0 ? "" : entry.substring(equals + 1).trim();
            if (!NAME.matcher(name).matches() || jndi.isEmpty()) {
                throw new IllegalArgumentException("courier.queue.databases: '" + entry.trim()
                        + "' is not name=jndi-name with a name of lower-case letters, digits and underscores");
            }
            if (COURIER.equals(name) || named.put(name, jndi) != null) {
                throw new IllegalArgumentException("courier.queue.databases: the name " + name
                        + (COURIER.equals(name) ? " is Courier's own database's" : " is given twice"));
            }
        }
        return named;
    }

    private static DataSource dataSource(String name, String jndi) {
        try {
            Object bound = new InitialContext().lookup(jndi);
            if (bound instanceof DataSource dataSource) {
                return dataSource;
            }
            throw new IllegalStateException("queue database " + name + ": " + jndi + " is not a datasource");
        } catch (NamingException e) {
            throw new IllegalStateException(
                    "queue database " + name + ": no datasource " + jndi + " in the server's configuration", e);
        }
    }

    private static QueueDialect dialect(Dialect kind) {
        return kind == Dialect.POSTGRESQL ? new PostgresQueueDialect() : new DerbyQueueDialect();
    }
}
