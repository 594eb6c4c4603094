/** Valid request pieces the tests start from (test card 4242…: the sandbox's always-succeeding card). */
export const address = {
  line1: '1 Main Street',
  city: 'Austin',
  country: 'US',
  state: 'TX',
  postalCode: '73301',
};
export const billingDetail = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  phone: '5550100',
  address,
};
export const card = {
  cardNo: '4242424242424242',
  cardExpireMonth: '12',
  cardExpireYear: '2030',
  cardSecurityCode: '123',
};
export const charge = {
  orderNo: 'order_1',
  orderAmount: '10.00',
  orderCurrency: 'USD',
  customerIp: '127.0.0.1',
  returnUrl: 'https://shop.example/return',
  webSite: 'shop.example',
  customerPaymentMethodId: 'pm_1',
};
