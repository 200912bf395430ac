package dev.courier.pgxa;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.ConnectionEventListener;
import javax.sql.StatementEventListener;
import javax.sql.XAConnection;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/** A pgjdbc XA connection whose resource reports a session ended by the server as "unavailable, retry". */
final class RestartSafeXAConnection implements XAConnection {

    private final XAConnection connection;
    private final Resource resource;

    RestartSafeXAConnection(XAConnection connection) throws SQLException {
        this.connection = connection;
        this.resource = new Resource(connection.getXAResource());
    }

    @Override
    public XAResource getXAResource() {
        return resource;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return connection.getConnection();
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }

    @Override
    public void addConnectionEventListener(ConnectionEventListener listener) {
        connection.addConnectionEventListener(listener);
    }

    @Override
    public void removeConnectionEventListener(ConnectionEventListener listener) {
        connection.removeConnectionEventListener(listener);
    }

    @Override
    public void addStatementEventListener(StatementEventListener listener) {
        connection.addStatementEventListener(listener);
    }

    @Override
    public void removeStatementEventListener(StatementEventListener listener) {
        connection.removeStatementEventListener(listener);
    }

    /** The driver's XA resource, with XAER_RMERR caused by a lost session turned into XAER_RMFAIL. */
    static final class Resource implements XAResource {

        private final XAResource xa;

        Resource(XAResource xa) {
            this.xa = xa;
        }

        @Override
        public void commit(Xid xid, boolean onePhase) throws XAException {
            try {
                xa.commit(xid, onePhase);
            } catch (XAException e) {
                throw SessionLost.retryable(e);
            }
        }

        @Override
        public void rollback(Xid xid) throws XAException {
            try {
                xa.rollback(xid);
            } catch (XAException e) {
                throw SessionLost.retryable(e);
            }
        }

        @Override
        public int prepare(Xid xid) throws XAException {
            try {
                return xa.prepare(xid);
            } catch (XAException e) {
                throw SessionLost.retryable(e);
            }
        }

        @Override
        public void end(Xid xid, int flags) throws XAException {
            xa.end(xid, flags);
        }

        @Override
        public void forget(Xid xid) throws XAException {
            xa.forget(xid);
        }

        @Override
        public int getTransactionTimeout() throws XAException {
            return xa.getTransactionTimeout();
        }

        @Override
        public boolean isSameRM(XAResource other) throws XAException {
            return xa.isSameRM(other instanceof Resource r ? r.xa : other);
        }

        @Override
        public Xid[] recover(int flag) throws XAException {
            try {
                return xa.recover(flag);
            } catch (XAException e) {
                throw SessionLost.retryable(e);
            }
        }

        @Override
        public boolean setTransactionTimeout(int seconds) throws XAException {
            return xa.setTransactionTimeout(seconds);
        }

        @Override
        public void start(Xid xid, int flags) throws XAException {
            xa.start(xid, flags);
        }
    }
}
