package dev.courier.web;

import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Refuses to start Courier under an authentication mode that does not exist. {@code COURIER_AUTH} picks the
 * server's {@code auth-<mode>.xml}; any other value (credentials exported for curl under that name, say) would
 * include a file that is not there and leave the server with no way to log anyone in, answering 401 to every
 * call while it reports ready. Guarantee: Courier starts only under {@code basic} or {@code jwt}, and under
 * {@code jwt} only with an audience to require ({@code MP_JWT_VERIFY_AUDIENCES}): without one, a token the same
 * identity provider issued for any other application would be taken here. Otherwise the application fails to start
 * with a message naming the variable (never its value, which may be a password).
 */
@Singleton
@Startup
public class AuthenticationMode {

    private static final Logger LOG = Logger.getLogger(AuthenticationMode.class.getName());
    private static final Set<String> MODES = Set.of("basic", "jwt");

    @Inject
    @ConfigProperty(name = "courier.auth", defaultValue = "basic")
    String mode;

    @Inject
    @ConfigProperty(name = "mp.jwt.verify.audiences")
    Optional<String> audiences;

    @PostConstruct
    void check() {
        String refused = refusal(mode, audiences);
        if (refused != null) {
            LOG.log(Level.SEVERE, refused);
            throw new IllegalStateException(refused);
        }
    }

    /** @return why Courier does not start under these settings, or null when it does */
    static String refusal(String mode, Optional<String> audiences) {
        if (!MODES.contains(mode)) {
            return "COURIER_AUTH (courier.auth) is a value that is not a mode: it is the server's"
                    + " authentication mode, basic or jwt, not credentials. Courier does not start.";
        }
        if (mode.equals("jwt") && audiences.map(String::isBlank).orElse(true)) {
            return "COURIER_AUTH=jwt needs MP_JWT_VERIFY_AUDIENCES (mp.jwt.verify.audiences), the audience Courier's"
                    + " tokens are issued for: without one, a token for any application of the same identity"
                    + " provider would be taken. Courier does not start.";
        }
        return null;
    }
}
