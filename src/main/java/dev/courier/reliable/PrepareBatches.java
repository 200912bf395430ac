package dev.courier.reliable;

import dev.courier.platform.ProblemException;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.List;

/**
 * One batch of {@link Prepares}: the admitted prepares stored in a transaction of their own, committed before the
 * call returns, so that no caller learns its message id before its message is stored.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class PrepareBatches {

    @Inject
    private Protocol protocol;

    /** @return per row, null when stored, else the problem that refused it (nothing of it written) */
    public List<ProblemException> store(List<MessageStore.MessageRow> admitted) {
        return protocol.store(admitted);
    }
}
