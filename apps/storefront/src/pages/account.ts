import type { Page } from '../context';
import { busy, clearErrors, field, formValues, html, render, showError, spinner } from '../dom';
import { requireFields } from '../stores/http';
import { FieldError } from '../stores/types';

export const accountPage: Page = async ({ store, navigate, refreshHeader }) => {
  render(spinner('Loading your account…'));
  const customer = await store.currentCustomer();
  if (customer) {
    render(html`<h1>Your account</h1><p data-testid="logged-in-as">Logged in to ${store.name} as <strong>${customer.email}</strong>.</p>
      <p><a href="/account/cards" data-link>My saved cards</a></p><button id="logout">Log out</button>`);
    document.getElementById('logout')!.addEventListener('click', () => {
      void store.logout().then(async () => {
        await refreshHeader();
        navigate('/account');
      });
    });
    return;
  }
  render(html`<h1>Log in or register <small>${store.name} store</small></h1><div class="columns">
    <form id="login" class="card" novalidate><h2>Log in</h2>
      ${field('email', 'Email', '', { type: 'email', autocomplete: 'username' })}
      ${field('password', 'Password', '', { type: 'password', autocomplete: 'current-password' })}
      <button type="submit">Log in</button><p class="form-error" role="alert"></p></form>
    <form id="register" class="card" novalidate><h2>Create an account</h2>
      ${field('firstName', 'First name', '', { autocomplete: 'given-name' })}
      ${field('lastName', 'Last name', '', { autocomplete: 'family-name' })}
      ${field('email', 'Email', '', { type: 'email', autocomplete: 'email' })}
      ${field('password', 'Password (at least 8 characters)', '', { type: 'password', autocomplete: 'new-password' })}
      <button type="submit">Register</button><p class="form-error" role="alert"></p></form></div>`);

  const done = async () => {
    await refreshHeader();
    navigate((await store.getCart()) ? '/checkout' : '/account');
  };
  const login = document.getElementById('login') as HTMLFormElement;
  login.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors(login);
    void busy(login, async () => {
      try {
        const values = formValues(login);
        requireFields(values, { email: 'Email', password: 'Password' });
        await store.login(values.email!.trim(), values.password!);
        await done();
      } catch (error) {
        showError(login, error);
      }
    });
  });
  const register = document.getElementById('register') as HTMLFormElement;
  register.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors(register);
    void busy(register, async () => {
      try {
        const values = formValues(register);
        requireFields(values, {
          firstName: 'First name',
          lastName: 'Last name',
          email: 'Email',
          password: 'Password',
        });
        if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email!.trim()))
          throw new FieldError('email', 'Enter a valid email address');
        if (values.password!.length < 8) throw new FieldError('password', 'Use at least 8 characters');
        await store.register(
          {
            email: values.email!.trim(),
            firstName: values.firstName!.trim(),
            lastName: values.lastName!.trim(),
          },
          values.password!,
        );
        await done();
      } catch (error) {
        showError(register, error);
      }
    });
  });
};
