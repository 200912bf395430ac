package dev.courier.orders;

/**
 * An order as the orders service sees it. {@code PLACED}: accepted, the inventory's answer not yet back
 * (asynchronous modes only). {@code RESERVED}: stock is held for it. {@code REJECTED}: out of stock, so the
 * order is compensated (asynchronous modes; XA refuses such an order at once). Only PLACED moves.
 */
public enum OrderState {
    PLACED,
    RESERVED,
    REJECTED
}
