package dev.courier.access;

import dev.courier.web.Roles;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import javax.security.auth.Subject;

/**
 * Who asks for an operation, as far as grants are concerned: a principal's name and its groups. A caller of the
 * REST API is {@link #of(SecurityContext) taken from its request}; an admin is trusted. Application code in the
 * server acts as {@link #TRUSTED}: it chose its queues when it was written.
 */
public final class Caller {

    /** Code in the server: every grant allows it. */
    public static final Caller TRUSTED = new Caller("(server)", group -> false, true);

    private static final String JSON_WEB_TOKEN = "org.eclipse.microprofile.jwt.JsonWebToken";

    private final String name;
    private final Predicate<String> groups;
    private final boolean trusted;

    private Caller(String name, Predicate<String> groups, boolean trusted) {
        this.name = Objects.requireNonNull(name);
        this.groups = groups;
        this.trusted = trusted;
    }

    /**
     * The authenticated caller of a request, on the request's thread. Its groups are those the user registry,
     * or the token's {@code groups} claim, gives it; they are read from the caller's subject once asked for, so
     * the caller may be asked later on another thread (a long poll's claims) or inside an EJB.
     */
    public static Caller of(SecurityContext security) {
        Principal principal = security.getUserPrincipal();
        String name = principal == null ? "" : nameOf(principal);
        boolean admin = security.isUserInRole(Roles.ADMIN);
        Optional<Subject> subject = CallerGroups.callerSubject();
        if (subject.isEmpty()) {
            return new Caller(name, security::isUserInRole, admin); // not on Liberty: declared roles only
        }
        Subject caller = subject.get();
        return new Caller(
                name,
                new Predicate<>() {
                    private volatile Set<String> groups;

                    @Override
                    public boolean test(String group) {
                        Set<String> known = groups;
                        if (known == null) {
                            groups = known = CallerGroups.of(caller);
                        }
                        return known.contains(group);
                    }
                },
                admin);
    }

    /**
     * The name grants match for {@code principal}: a token's subject ({@code sub}), else the principal's name. Not
     * mpJwt's name, which is {@code upn}, then {@code preferred_username}, then {@code sub}: where users can edit
     * their {@code preferred_username}, a user calling itself {@code orders} would act for the producer
     * {@code orders}. Courier trusts one issuer ({@code mp.jwt.verify.issuer}), so its subjects are unique.
     */
    public static String nameOf(Principal principal) {
        // By the interface's name: the token API is there only when the mpJwt feature is (COURIER_AUTH=jwt).
        Class<?> token = contract(principal.getClass(), JSON_WEB_TOKEN);
        if (token != null) {
            try {
                if (token.getMethod("getSubject").invoke(principal) instanceof String subject) {
                    return subject;
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("a token whose subject cannot be read", e);
            }
        }
        return principal.getName();
    }

    /** The interface named {@code name} that {@code type} implements, directly or not, or null. */
    private static Class<?> contract(Class<?> type, String name) {
        for (Class<?> at = type; at != null; at = at.getSuperclass()) {
            for (Class<?> contract : at.getInterfaces()) {
                Class<?> found = contract.getName().equals(name) ? contract : contract(contract, name);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    /** A caller named {@code name} in {@code groups}: for tests and for code that authenticates by itself. */
    public static Caller of(String name, Predicate<String> groups) {
        return new Caller(name, groups, false);
    }

    public String name() {
        return name;
    }

    public boolean inGroup(String group) {
        return groups.test(group);
    }

    /** Trusted callers (admins, the server's own code) are never narrowed by grants. */
    public boolean trusted() {
        return trusted;
    }

    @Override
    public String toString() {
        return trusted ? name + " (trusted)" : name;
    }
}
