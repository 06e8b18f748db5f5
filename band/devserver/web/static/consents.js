// Delegation consents: which agents (that the person does not own) may act for them, and on
// which systems (audiences: connector ids). band dev's stand-in for Band's connector
// settings; the agent redeems a token with POST /api/v1/agent/delegation/token.

const CONSENTS = "/me/delegation/consents";

function item(consent, api, refresh) {
  const li = document.createElement("li");
  const who = consent.agent_handle ? `@${consent.agent_handle}` : consent.agent_id;
  const text = document.createElement("span");
  text.textContent = `${who}: ${consent.audiences.join(", ") || "no systems"}`;
  const revoke = document.createElement("button");
  revoke.type = "button";
  revoke.textContent = "Revoke";
  revoke.setAttribute("aria-label", `Revoke the consent of ${who}`);
  revoke.addEventListener("click", async () => {
    await api("DELETE", `${CONSENTS}/${encodeURIComponent(consent.id)}`);
    await refresh();
  });
  li.append(text, " ", revoke);
  return li;
}

// Fill the consent section of the agents page (the #tpl-consents template) under `root`.
export async function mountConsents(root, api) {
  const section = document.getElementById("tpl-consents").content.cloneNode(true);
  root.append(section);
  const list = root.querySelector("#consent-list");
  const error = root.querySelector("#consent-error");
  const refresh = async () => {
    const { data } = await api("GET", CONSENTS);
    list.replaceChildren(...data.map((c) => item(c, api, refresh)));
    root.querySelector("#consents-empty").hidden = data.length > 0;
  };
  root.querySelector("#consent-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const agentId = root.querySelector("#consent-agent").value.trim();
    const audiences = root.querySelector("#consent-audiences").value
      .split(",").map((a) => a.trim()).filter(Boolean);
    try {
      await api("POST", CONSENTS, { consent: { agent_id: agentId, audiences } });
    } catch (err) {
      error.textContent = `Not saved: ${err.message}`;
      return;
    }
    event.target.reset();
    await refresh();
  });
  await refresh();
}
