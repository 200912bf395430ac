package dev.courier.access;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.security.auth.Subject;

/**
 * The registry groups of the caller on this thread, read from Liberty's security runtime. Portable APIs answer
 * only for roles the application declares ({@code isUserInRole} of any other name is false), and grants name
 * groups the application cannot know, so this asks Liberty's public API ({@code WSSubject}, {@code WSCredential})
 * through method handles: the WAR compiles without it, and elsewhere {@link #available()} is false.
 */
final class CallerGroups {

    private static final Logger LOG = Logger.getLogger(CallerGroups.class.getName());

    private static final MethodHandle CALLER_SUBJECT;
    private static final Class<?> CREDENTIAL;
    private static final MethodHandle GROUP_IDS;
    private static final MethodHandle REALM;

    static {
        MethodHandle subject = null;
        Class<?> credential = null;
        MethodHandle groups = null;
        MethodHandle realm = null;
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> wsSubject = Class.forName("com.ibm.websphere.security.auth.WSSubject");
            subject = lookup.findStatic(wsSubject, "getCallerSubject", MethodType.methodType(Subject.class));
            credential = Class.forName("com.ibm.websphere.security.cred.WSCredential");
            groups = lookup.unreflect(credential.getMethod("getGroupIds")); // an ArrayList, by its signature
            realm = lookup.unreflect(credential.getMethod("getRealmName"));
        } catch (ReflectiveOperationException | LinkageError e) {
            LOG.log(Level.INFO, "no Liberty security API: groups come from isUserInRole", e);
        }
        CALLER_SUBJECT = subject;
        CREDENTIAL = credential;
        GROUP_IDS = groups;
        REALM = realm;
    }

    private CallerGroups() {}

    static boolean available() {
        return GROUP_IDS != null;
    }

    /** The caller's subject on this thread; empty when there is none or no Liberty. */
    static Optional<Subject> callerSubject() {
        if (!available()) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable((Subject) CALLER_SUBJECT.invokeExact());
        } catch (Throwable e) {
            LOG.log(Level.WARNING, "could not read the caller's subject", e);
            return Optional.empty();
        }
    }

    /**
     * The group names of {@code subject}: Liberty lists them as {@code group:<realm>/<name>}, the realm being the
     * registry's or a token's issuer (a URL, slashes and all).
     */
    static Set<String> of(Subject subject) {
        Set<String> names = new HashSet<>();
        for (Object credential : subject.getPublicCredentials(CREDENTIAL)) {
            try {
                @SuppressWarnings("unchecked")
                List<String> ids = (List<String>) (Object) GROUP_IDS.invoke(credential);
                String realm = (String) REALM.invoke(credential);
                for (String id : ids) {
                    names.add(name(id, realm));
                }
            } catch (Throwable e) {
                LOG.log(Level.WARNING, "could not read the caller's groups", e);
            }
        }
        return names;
    }

    /**
     * The name in {@code group:<realm>/<name>}, whole: an identity provider's group path ({@code /emea/payments},
     * the id then holding {@code <issuer>//emea/payments}) stays a path, so groups of the same last segment under
     * different parents stay different groups. An id of another realm keeps what follows the last slash, the
     * only reading that needs no realm.
     */
    static String name(String id, String realm) {
        String prefix = "group:" + realm + "/";
        return realm != null && id.startsWith(prefix)
                ? id.substring(prefix.length())
                : id.substring(id.lastIndexOf('/') + 1);
    }
}
