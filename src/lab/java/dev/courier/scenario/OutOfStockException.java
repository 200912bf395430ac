package dev.courier.scenario;

import dev.courier.platform.ProblemException;

/** XA mode: the stock cannot cover the order, so nothing is written anywhere (409). */
public class OutOfStockException extends ProblemException {

    private static final long serialVersionUID = 1L;

    OutOfStockException(String sku, int quantity) {
        super(409, "Out of stock", "not enough '" + sku + "' in stock for " + quantity + "; nothing was written");
    }
}
