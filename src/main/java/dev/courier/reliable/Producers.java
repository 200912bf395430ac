package dev.courier.reliable;

import dev.courier.access.Principals;
import dev.courier.client.CallSignature;
import dev.courier.platform.DatabaseClock;
import dev.courier.platform.ProblemException;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Upstream applications registered with Courier: where to check back and whom to notify, and the secret Courier
 * signs those calls with. Registering a name again updates its URLs and keeps its secret; the secret is shown
 * when the producer is created and when it is replaced, never again. URLs must name a host the configured
 * allow-list admits. {@code REQUIRED}: the registration commits with the caller's transaction.
 */
@Stateless
// Reads too: a read that answers 404 without a global transaction would run in a local transaction
// containment, which logs WLTC0017E at ERROR (and an FFDC) when the problem marks it for rollback.
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class Producers {

    @Inject
    private ReliableDatabase database;

    @Inject
    private ProducerStore store;

    @Inject
    private MessageStore messages;

    @Inject
    private ProducerGates gates;

    @Inject
    private DatabaseClock clock;

    @Inject
    private ReliableSettings settings;

    /** A registration's outcome: the signing secret of a new producer, none for an update. */
    public record Registration(boolean created, Optional<String> secret) {}

    /**
     * @param principals who may prepare, confirm and cancel its messages besides admins; null keeps those it has
     *     (none for a new producer)
     * @throws ProblemException 400 for a bad name, or a URL that is malformed or names a host not allowed
     */
    public Registration register(String name, String checkBackUrl, String notificationUrl, Principals principals) {
        Names.check("name", name);
        URI checkBack = url("checkBackUrl", checkBackUrl);
        URI notification = notificationUrl == null ? null : url("notificationUrl", notificationUrl);
        String secret = CallSignature.newSecret();
        try (Connection c = database.connection()) {
            boolean created = store.saveProducer(c, name, checkBack, notification, principals, secret, clock.instant());
            return new Registration(created, created ? Optional.of(secret) : Optional.empty());
        } catch (SQLException e) {
            throw new IllegalStateException("registering a producer failed", e);
        }
    }

    /**
     * The signing secret of a producer that lives in this server (the demo scenario's services), to verify
     * Courier's calls with as any producer would; empty for an unknown producer. Other producers got theirs at
     * registration: Courier never shows a secret over HTTP again.
     */
    public Optional<String> signingSecret(String name) {
        try (Connection c = database.connection()) {
            return store.secret(c, Names.check("name", name));
        } catch (SQLException e) {
            throw new IllegalStateException("reading a producer's secret failed", e);
        }
    }

    /**
     * Gives a producer a new signing secret; calls are signed with it from the next one on.
     *
     * @return the new secret @throws UnknownResourceException 404
     */
    public String replaceSecret(String name) {
        Names.check("name", name);
        String secret = CallSignature.newSecret();
        try (Connection c = database.connection()) {
            if (!store.replaceSecret(c, name, secret, clock.instant())) {
                throw new UnknownResourceException("producer", name);
            }
            return secret;
        } catch (SQLException e) {
            throw new IllegalStateException("replacing a producer's secret failed", e);
        }
    }

    /** The principals who may act for producer {@code name}; empty for no such producer. */
    public Optional<Principals> principals(String name) {
        try (Connection c = database.connection()) {
            return store.producer(c, name).map(Producer::principals);
        } catch (SQLException e) {
            throw new IllegalStateException("reading a producer failed", e);
        }
    }

    public List<Producer> list() {
        try (Connection c = database.connection()) {
            return store.producers(c);
        } catch (SQLException e) {
            throw new IllegalStateException("listing producers failed", e);
        }
    }

    /** A producer with the state of its check-backs. @throws UnknownResourceException 404 */
    public ProducerStatus status(String name) {
        Names.check("name", name);
        try (Connection c = database.connection()) {
            Producer producer =
                    store.producer(c, name).orElseThrow(() -> new UnknownResourceException("producer", name));
            MessageStore.CheckStatus checks = messages.checkStatus(c, name, clock.instant());
            ProducerGate gate = gates.of(name);
            return new ProducerStatus(
                    producer,
                    gate.circuit(clock.instant()),
                    checks.pending(),
                    checks.due(),
                    gate.lastError() != null ? gate.lastError() : checks.lastError());
        } catch (SQLException e) {
            throw new IllegalStateException("reading a producer failed", e);
        }
    }

    private URI url(String field, String text) {
        if (text == null || text.length() > 2000) {
            throw ProblemException.invalid(
                    "'" + field + "' must be an absolute http or https URL of at most 2000 characters");
        }
        try {
            URI uri = new URI(text);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if ((scheme.equals("http") || scheme.equals("https"))
                    && uri.getHost() != null
                    && uri.getRawQuery() == null
                    && uri.getRawFragment() == null) {
                String refused =
                        CallTargets.refusal(uri, settings.allowedUrlHosts, settings.plainHttpHosts.orElse(List.of()));
                if (refused != null) {
                    throw ProblemException.invalid("'" + field + "': " + refused);
                }
                return uri;
            }
        } catch (java.net.URISyntaxException e) {
            // answered below
        }
        throw ProblemException.invalid(
                "'" + field + "' must be an absolute http or https URL without query or fragment");
    }
}
