/**
 * The card iframe's page and stylesheet (docs/card-element.md): card number, expiry MM/YY and CVC with
 * labels, served by the sandbox's own origin at `/static/v3/element/card.html`. Its script is
 * frame-script.ts; nothing inline, so the page's CSP can forbid inline code.
 */
export const FRAME_PAGE_PATH = '/static/v3/element/card.html';
export const FRAME_SCRIPT_PATH = '/static/v3/element/card.js';
export const FRAME_STYLE_PATH = '/static/v3/element/card.css';

export const FRAME_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Card details</title>
<link rel="stylesheet" href="${FRAME_STYLE_PATH}">
</head>
<body>
<form id="card-form" class="block" novalidate>
  <div class="field number">
    <label for="cardNo">Card number</label>
    <div class="control">
      <input id="cardNo" name="cardnumber" type="text" inputmode="numeric" autocomplete="cc-number"
        placeholder="1234 1234 1234 1234" maxlength="23" spellcheck="false" aria-describedby="brand">
      <span id="brand" class="brand" aria-live="polite"></span>
    </div>
  </div>
  <div class="field expiry">
    <label for="cardExpiry">Expiry (MM/YY)</label>
    <div class="control">
      <input id="cardExpiry" name="exp-date" type="text" inputmode="numeric" autocomplete="cc-exp"
        placeholder="MM / YY" maxlength="7" spellcheck="false">
    </div>
  </div>
  <div class="field cvc">
    <label for="cardCvc">CVC</label>
    <div class="control">
      <input id="cardCvc" name="cvc" type="text" inputmode="numeric" autocomplete="cc-csc"
        placeholder="CVC" maxlength="4" spellcheck="false">
    </div>
  </div>
  <p class="secure"><span class="lock" aria-hidden="true"></span>Card details go straight to the payment gateway (sandbox)</p>
</form>
<script src="${FRAME_SCRIPT_PATH}"></script>
</body>
</html>
`;

export const FRAME_STYLE = `
*{box-sizing:border-box}
html,body{margin:0;padding:0;background:transparent}
body{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#30313d;font-size:15px}
form{display:grid;gap:12px;padding:2px}
form.block{grid-template-columns:1fr 1fr}
form.block .number,form.block .secure{grid-column:1 / -1}
form.inner{grid-template-columns:2fr 1fr 1fr}
form.inner .secure{grid-column:1 / -1}
.field{display:flex;flex-direction:column;gap:6px;min-width:0}
label{font-size:13px;font-weight:500;color:#6d6e78}
.control{position:relative}
input{width:100%;padding:11px 12px;font:inherit;font-size:16px;color:inherit;background:#fff;border:1px solid #d9dbe1;border-radius:6px;box-shadow:0 1px 1px rgba(0,0,0,.03),0 3px 6px rgba(0,0,0,.02);outline:none;transition:border-color .15s,box-shadow .15s}
input::placeholder{color:#a3a5ad}
input:focus{border-color:#7b8cff;box-shadow:0 0 0 3px rgba(99,114,255,.25)}
input.invalid{border-color:#df1b41;color:#df1b41}
input.invalid:focus{box-shadow:0 0 0 3px rgba(223,27,65,.2)}
.number input{padding-right:72px}
.brand{position:absolute;right:10px;top:50%;transform:translateY(-50%);font-size:11px;font-weight:700;letter-spacing:.04em;color:#1a1f71;background:#f1f2f6;border-radius:4px;padding:3px 6px}
.brand:empty{display:none}
.secure{margin:0;font-size:12px;color:#8a8c96;display:flex;align-items:center;gap:6px}
.lock{display:inline-block;width:9px;height:7px;background:#8a8c96;border-radius:1px;position:relative;margin-top:4px}
.lock::before{content:"";position:absolute;left:1.5px;top:-5px;width:6px;height:6px;border:1.5px solid #8a8c96;border-bottom:0;border-radius:3px 3px 0 0;box-sizing:border-box}
form.busy input{opacity:.6}
body.unusable form{display:none}
`;
