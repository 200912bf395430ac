package dev.courier.orders;

import jakarta.ejb.ApplicationException;

/**
 * A refused request, answered as {@code application/problem+json} with its status ({@link OrderProblemMapper}).
 * Thrown anywhere in an order's transaction it rolls the transaction back: a refused order writes nothing.
 */
@ApplicationException(rollback = true)
public class OrderProblem extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String title;

    public OrderProblem(int status, String title, String detail) {
        super(detail);
        this.status = status;
        this.title = title;
    }

    static OrderProblem invalid(String detail) {
        return new OrderProblem(400, "Invalid request", detail);
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }
}
