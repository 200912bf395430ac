package dev.courier.client;

import java.util.concurrent.Executor;
import java.util.logging.Logger;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * The container's default managed executor, where the helpers make their calls after a transaction completed.
 * Outside a container there is none, and the helpers call on the completing thread instead (synchronously).
 */
final class DefaultExecutor {

    static final String NAME = "java:comp/DefaultManagedExecutorService";
    private static final Logger LOG = Logger.getLogger(DefaultExecutor.class.getName());

    private DefaultExecutor() {}

    /** @return the default managed executor, or null where there is none (the caller then calls synchronously) */
    static Executor lookup(String purpose) {
        try {
            return (Executor) new InitialContext().lookup(NAME);
        } catch (NamingException | ClassCastException e) {
            LOG.info(() -> "no default managed executor (" + NAME + "): the helper will " + purpose
                    + " synchronously, on the thread that completed the transaction");
            return null;
        }
    }
}
