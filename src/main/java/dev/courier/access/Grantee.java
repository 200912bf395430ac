package dev.courier.access;

import dev.courier.platform.ProblemException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One entry of a grant: a principal ({@code user:alice}) or a group ({@code group:payments}) of the user
 * registry or of a token's {@code groups} claim. Names are 1–128 letters, digits and {@code . _ @ + -}; a group's
 * name may also be a path, as identity providers send it ({@code group:/emea/payments}), and is matched whole:
 * {@code /emea/payments} and {@code /apac/payments} are different groups.
 */
public record Grantee(Kind kind, String name) {

    static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@+\\-]{1,128}");
    static final Pattern GROUP_PATH = Pattern.compile("/?[A-Za-z0-9._@+\\-]+(/[A-Za-z0-9._@+\\-]+)*");

    /** Whom an entry names. */
    public enum Kind {
        USER,
        GROUP
    }

    public Grantee {
        Objects.requireNonNull(kind, "kind");
        boolean valid = name != null
                && (NAME.matcher(name).matches()
                        || (kind == Kind.GROUP
                                && name.length() <= 128
                                && GROUP_PATH.matcher(name).matches()));
        if (!valid) {
            throw ProblemException.invalid("a grantee's name is 1 to 128 letters, digits and . _ @ + -"
                    + " (a group's may be a path: /emea/payments)");
        }
    }

    /** @throws ProblemException 400 unless {@code text} is {@code user:<name>} or {@code group:<name>} */
    public static Grantee parse(String text) {
        int colon = text == null ? -1 : text.indexOf(':');
        Kind kind = colon < 0
                ? null
                : switch (text.substring(0, colon)) {
                    case "user" -> Kind.USER;
                    case "group" -> Kind.GROUP;
                    default -> null;
                };
        if (kind == null) {
            throw ProblemException.invalid(
                    "a grantee is 'user:<name>' or 'group:<name>', not '" + abbreviate(text) + "'");
        }
        return new Grantee(kind, text.substring(colon + 1));
    }

    boolean matches(Caller caller) {
        return kind == Kind.USER ? name.equals(caller.name()) : caller.inGroup(name);
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(Locale.ROOT) + ":" + name;
    }

    private static String abbreviate(String text) {
        String shown = String.valueOf(text).replaceAll("\\p{Cntrl}", "?");
        return shown.length() <= 40 ? shown : shown.substring(0, 40) + "…";
    }
}
