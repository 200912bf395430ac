package dev.courier.platform;

import jakarta.annotation.Priority;
import jakarta.annotation.Resource;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * The interceptor of {@link ProblemsRollBack}. It runs inside the transaction interceptor (a later priority),
 * so the transaction it marks is the one the call ran in: the caller's, when the call joined it.
 */
@ProblemsRollBack
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_AFTER)
class ProblemRollback {

    @Resource
    private TransactionSynchronizationRegistry transactions;

    @AroundInvoke
    Object rollBackOnProblem(InvocationContext invocation) throws Exception {
        try {
            return invocation.proceed();
        } catch (ProblemException e) {
            if (transactions.getTransactionStatus() == Status.STATUS_ACTIVE) {
                transactions.setRollbackOnly();
            }
            throw e;
        }
    }
}
