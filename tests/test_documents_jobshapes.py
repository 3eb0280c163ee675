"""The job checklist on posting shapes written here, not taken from the dev corpus.

Each posting is made up for the test, in a shape real postings come in (careers-page
Markdown, TOML/YAML front matter, civil-service sub-headings, HTML from a job feed,
German and Spanish postings, duties-only texts...), so that the parser is checked on
more than the files it was developed against.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from resume_auditor.documents.jobparse import read_checklist
from resume_auditor.domain.job import QualKind


def _pairs(text: str) -> list[tuple[str, str]]:
    return [(q.kind.value, q.text) for q in read_checklist(text).job.qualifications]


def _texts(text: str, kind: QualKind) -> list[str]:
    return [q.text for q in read_checklist(text).job.qualifications if q.kind is kind]


def test_careers_page_markdown_with_bold_headings() -> None:
    text = (
        "# Platform Engineer\n\n"
        "We run the payments rails for small shops.\n\n"
        "**What you'll do**\n"
        "- Own our Terraform modules\n"
        "- Be on call one week in six\n\n"
        "**What you'll bring**\n"
        "- 4+ years running Linux in production\n"
        "- Go or Rust\n\n"
        "**Bonus points**\n"
        "- You have contributed to an open-source scheduler\n\n"
        "**Perks**\n"
        "- A bike to work scheme\n"
    )
    reading = read_checklist(text)
    assert reading.job.title == "Platform Engineer"
    assert _pairs(text) == [
        ("required", "4+ years running Linux in production"),
        ("required", "Go or Rust"),
        ("preferred", "You have contributed to an open-source scheduler"),
    ]
    assert reading.notes == []


def test_you_have_and_nice_to_have_without_punctuation() -> None:
    text = (
        "Junior Analyst\n"
        "You have\n"
        "* A degree in economics or statistics\n"
        "* Fluency in Excel\n"
        "Nice to have\n"
        "* Tableau\n"
        "About the team\n"
        "* Six analysts in Leeds\n"
    )
    assert _pairs(text) == [
        ("required", "A degree in economics or statistics"),
        ("required", "Fluency in Excel"),
        ("preferred", "Tableau"),
    ]


def test_toml_front_matter_is_skipped_but_its_requirements_field_is_read() -> None:
    text = (
        "+++\n"
        'title = "Night Porter"\n'
        'thumbnail = "/img/porter.png"\n'
        "date = 2024-03-01\n"
        'requirements = ["Can work nights", "Basic first aid"]\n'
        "+++\n"
        "Our hotel is looking for a night porter.\n\n"
        "Duties:\n"
        "- Carry luggage\n"
        "- Lock up at 2 am\n"
    )
    reading = read_checklist(text)
    assert reading.job.title == "Night Porter"
    assert reading.front_matter == "TOML"
    assert _texts(text, QualKind.REQUIRED) == ["Can work nights", "Basic first aid"]
    every = " ".join(q.text for q in reading.job.qualifications)
    assert "+++" not in every and "thumbnail" not in every


def test_yaml_front_matter_with_a_list_field_and_nothing_in_the_body() -> None:
    text = (
        "---\n"
        "layout: job\n"
        "title: Dental Nurse\n"
        "requirements:\n"
        "  - GDC registration\n"
        "  - Two years in a dental practice\n"
        "preferred_skills: >-\n"
        "  Experience with\n"
        "  orthodontics\n"
        "---\n"
        "A friendly practice in Bath needs a dental nurse four days a week.\n"
    )
    assert _pairs(text) == [
        ("required", "GDC registration"),
        ("required", "Two years in a dental practice"),
        ("preferred", "Experience with orthodontics"),
    ]


def test_front_matter_alone_does_not_become_requirements() -> None:
    text = "---\nlayout: post\ntitle: Barista\ntags: [coffee]\n---\nMake coffee. Smile.\n"
    reading = read_checklist(text)
    assert reading.job.qualifications == []
    assert any("no required qualification" in n for n in reading.notes)


def test_civil_service_sub_headings_stay_inside_the_qualifications() -> None:
    text = (
        "PARK RANGER I\n\n"
        "DISTINGUISHING FEATURES\n"
        "Patrols county parks and enforces park rules.\n\n"
        "MINIMUM QUALIFICATIONS\n"
        "Training:\n"
        "Completion of a 40-hour basic park ranger academy.\n"
        "Experience:\n"
        "One year of public contact work in a recreational setting.\n"
        "License or Certificate:\n"
        "Possession of a valid Class C driver's license.\n"
        "Special Requirements:\n"
        "Willingness to work weekends and holidays.\n\n"
        "SUPPLEMENTAL INFORMATION\n"
        "Applications close on Friday.\n"
    )
    assert _texts(text, QualKind.REQUIRED) == [
        "Completion of a 40-hour basic park ranger academy.",
        "One year of public contact work in a recreational setting.",
        "Possession of a valid Class C driver's license.",
        "Willingness to work weekends and holidays.",
    ]


def test_a_long_requirement_is_kept_not_dropped() -> None:
    long_line = (
        "Demonstrated experience designing, building and operating data pipelines that move "
        "clinical records between hospital systems, including HL7 v2 feeds, FHIR resources "
        "and flat-file exports, with attention to patient privacy, audit logging, retention "
        "rules and the recovery of failed loads without loss or duplication of records"
    )
    assert len(long_line) > 300
    text = f"Integration Engineer\nRequirements\n- {long_line}\n- SQL\nBenefits\n- Pension\n"
    found = _texts(text, QualKind.REQUIRED)
    assert " ".join(found[:-1]) == long_line
    assert found[-1] == "SQL"


def test_a_long_paragraph_of_requirements_is_read_one_sentence_at_a_time() -> None:
    paragraph = (
        "Applicants must hold a current commercial pilot licence with an instrument rating. "
        "They must have logged at least 1,500 hours, of which 500 as pilot in command, e.g. "
        "on twin-engine aircraft. A class 1 medical certificate is required at the time of "
        "appointment. Experience of mountain flying is an advantage but is not essential."
    )
    text = f"Line Pilot\n\nEligibility requirements:\n{paragraph}\n"
    found = _texts(text, QualKind.REQUIRED)
    assert len(found) == 3
    assert found[1].startswith("They must have logged at least 1,500 hours")
    assert "e.g. on twin-engine" in found[1]  # no cut after the abbreviation
    assert _texts(text, QualKind.PREFERRED) == [
        "Experience of mountain flying is an advantage but is not essential."
    ]


def test_numbered_lists_and_inline_requirement_lines() -> None:
    text = (
        "Warehouse Lead\n"
        "Requirements: forklift licence; 2 years in a warehouse\n"
        "Skills we look for\n"
        "1) Stock control software\n"
        "2) Reading pick lists in English\n"
    )
    assert _texts(text, QualKind.REQUIRED) == [
        "forklift licence",
        "2 years in a warehouse",
        "Stock control software",
        "Reading pick lists in English",
    ]


def test_html_from_a_job_feed() -> None:
    text = (
        "<h2>Pharmacy Technician</h2>"
        "<p>Join our busy community pharmacy.</p>"
        "<h3>Responsibilities</h3><ul><li>Dispense prescriptions</li><li>Order stock</li></ul>"
        "<h3>Qualifications</h3>"
        "<ul><li><p>Registered with the pharmacy council</p></li>"
        "<li>Knowledge of controlled drugs &amp; their storage</li></ul>"
        "<p><b>Desirable</b></p><ul><li>Experience in a hospital pharmacy</li></ul>"
        "<h3>Where you'll work</h3><ul><li>Our shop on the high street</li></ul>"
    )
    reading = read_checklist(text)
    assert [(q.kind.value, q.text) for q in reading.job.qualifications] == [
        ("required", "Registered with the pharmacy council"),
        ("required", "Knowledge of controlled drugs & their storage"),
        ("preferred", "Experience in a hospital pharmacy"),
    ]
    assert "HTML tags were removed" in reading.cleaned


def test_entity_escaped_list_without_headings_keeps_requirements_not_duties() -> None:
    text = (
        "Delivery Driver\n\n"
        "&lt;ul&gt;&lt;li&gt;Deliver parcels on a fixed route&lt;/li&gt;"
        "&lt;li&gt;Load the van each morning&lt;/li&gt;"
        "&lt;li&gt;Valid driving licence with no more than 3 points&lt;/li&gt;"
        "&lt;li&gt;Able to lift 25 kg&lt;/li&gt;&lt;/ul&gt;"
    )
    reading = read_checklist(text)
    assert [q.text for q in reading.job.required] == [
        "Valid driving licence with no more than 3 points",
        "Able to lift 25 kg",
    ]
    assert reading.by_wording
    assert any("by their wording" in n for n in reading.notes)


def test_uk_person_specification_essential_and_desirable() -> None:
    text = (
        "Library Assistant\n\n"
        "Person specification\n\n"
        "Essential\n"
        "- GCSE English and Maths at grade C or above\n"
        "- Experience of working with the public\n\n"
        "Desirable\n"
        "- Knowledge of library management systems\n"
    )
    assert _pairs(text) == [
        ("required", "GCSE English and Maths at grade C or above"),
        ("required", "Experience of working with the public"),
        ("preferred", "Knowledge of library management systems"),
    ]


def test_preferred_sub_heading_inside_qualifications_and_mixed_items() -> None:
    text = (
        "Veterinary Nurse\n"
        "QUALIFICATIONS\n"
        "Required:\n"
        "- RVN registration\n"
        "- Degree or diploma in veterinary nursing required; exotics experience a plus\n"
        "Preferred:\n"
        "- Large-animal experience\n"
    )
    assert _pairs(text) == [
        ("required", "RVN registration"),
        ("required", "Degree or diploma in veterinary nursing required"),
        ("preferred", "exotics experience a plus"),
        ("preferred", "Large-animal experience"),
    ]


def test_german_posting() -> None:
    text = (
        "Werkstudent Buchhaltung (m/w/d)\n\n"
        "Wir sind ein mittelständisches Unternehmen mit Sitz in Köln und suchen für unser "
        "Team eine engagierte Unterstützung in der Buchhaltung.\n\n"
        "Deine Aufgaben:\n"
        "- Vorbereitung der Monatsabschlüsse\n"
        "- Pflege der Kreditorenkonten\n\n"
        "Dein Profil:\n"
        "- Studium der Wirtschaftswissenschaften\n"
        "- Sichere Kenntnisse in Excel\n\n"
        "Wünschenswert:\n"
        "- Erfahrung mit DATEV\n\n"
        "Wir bieten:\n"
        "- Flexible Arbeitszeiten\n"
    )
    reading = read_checklist(text)
    assert _pairs(text) == [
        ("required", "Studium der Wirtschaftswissenschaften"),
        ("required", "Sichere Kenntnisse in Excel"),
        ("preferred", "Erfahrung mit DATEV"),
    ]
    assert reading.language == "German"
    assert any("German" in n and "Dein Profil" in n for n in reading.notes)


def test_spanish_posting() -> None:
    text = (
        "Auxiliar administrativo\n\n"
        "Empresa de logística con sede en Valencia busca un auxiliar para el departamento de "
        "compras, con contrato indefinido y jornada completa de lunes a viernes.\n\n"
        "Funciones:\n"
        "- Registro de facturas\n\n"
        "Requisitos:\n"
        "- Ciclo formativo de grado superior en administración\n"
        "- Manejo de SAP\n\n"
        "Se valorará:\n"
        "- Inglés nivel B2\n"
    )
    reading = read_checklist(text)
    assert _pairs(text) == [
        ("required", "Ciclo formativo de grado superior en administración"),
        ("required", "Manejo de SAP"),
        ("preferred", "Inglés nivel B2"),
    ]
    assert reading.language == "Spanish"


def test_a_language_without_known_headings_says_so() -> None:
    text = (
        "Cameriere di sala\n\n"
        "Il nostro ristorante nel centro di Bologna cerca un cameriere per la stagione estiva. "
        "Il lavoro è su turni, con due giorni di riposo, e per il personale che viene da fuori "
        "città è disponibile un alloggio.\n\n"
        "Cosa cerchiamo\n"
        "- Esperienza nel servizio ai tavoli\n"
    )
    reading = read_checklist(text)
    assert reading.language == "Italian"
    assert any("Italian" in n and "add" in n.lower() for n in reading.notes)


def test_duties_only_posting_gives_an_empty_checklist_and_says_why() -> None:
    text = (
        "Office Coordinator\n\n"
        "Responsibilities\n"
        "- Answer the phone and greet visitors\n"
        "- Order office supplies\n"
        "- Keep the meeting-room calendar\n"
    )
    reading = read_checklist(text)
    assert reading.job.qualifications == []
    joined = " ".join(reading.notes)
    assert "'Responsibilities'" in joined
    assert "unequal pairs" in joined
    assert "by hand" in joined


def test_prose_posting_without_headings_takes_must_sentences_only() -> None:
    text = (
        "Lifeguard\n\n"
        "The city pool is open from May to September and needs lifeguards for the season. "
        "Lifeguards watch the pool, help swimmers and keep the deck clean.\n\n"
        "Candidates must hold a current pool lifeguard qualification. A first aid certificate "
        "is required. Shifts are posted weekly.\n"
    )
    reading = read_checklist(text)
    assert [q.text for q in reading.job.required] == [
        "Candidates must hold a current pool lifeguard qualification.",
        "A first aid certificate is required.",
    ]


def test_page_furniture_of_a_printed_web_page_is_not_a_requirement() -> None:
    text = (
        "3/4/25, 09:15\n"
        "Store Manager - Jobs at Greengrocer Co\n"
        "Requirements\n"
        "- Three years managing a shop\n"
        "https://jobs.example.com/store-manager\n"
        "1/2\n"
        "3/4/25, 09:15\n"
        "Store Manager - Jobs at Greengrocer Co\n"
        "- Cash handling\n"
    )
    assert _texts(text, QualKind.REQUIRED) == ["Three years managing a shop", "Cash handling"]


def test_job_board_footer_tags_count_outside_any_section() -> None:
    text = (
        "Sales Associate\n"
        "Join our store team.\n"
        "Job Type: Part-time\n"
        "Pay: $15.00 per hour\n"
        "Education:\n"
        "High school or equivalent (Required)\n"
        "Language:\n"
        "Spanish (Preferred)\n"
    )
    assert _pairs(text) == [
        ("required", "High school or equivalent (Required)"),
        ("preferred", "Spanish (Preferred)"),
    ]


@pytest.mark.parametrize(
    "heading",
    ["Who you are", "Qualifications", "What we're looking for:", "## Must haves", "YOU HAVE"],
)
def test_more_required_headings(heading: str) -> None:
    text = f"Data Analyst\n\n{heading}\n- SQL\n- dbt\n\nHow to apply\n- Send a CV\n"
    assert _pairs(text) == [("required", "SQL"), ("required", "dbt")]


def test_emoji_headings_and_emoji_bullets() -> None:
    text = (
        "\U0001f680 Growth Marketer\n\n"
        "\U0001f9e0 What you'll need\n"
        "\u2705 2+ years in B2B SaaS marketing\n"
        "\u2705 Hands-on with HubSpot\n\n"
        "\u2728 Bonus\n"
        "\u2705 SQL basics\n\n"
        "\U0001f4b8 Perks\n"
        "\u2705 Remote-first\n"
    )
    reading = read_checklist(text)
    assert reading.job.title == "Growth Marketer"
    assert _pairs(text) == [
        ("required", "2+ years in B2B SaaS marketing"),
        ("required", "Hands-on with HubSpot"),
        ("preferred", "SQL basics"),
    ]


def test_inline_qualification_fields_one_per_sentence() -> None:
    text = (
        "Accountant II\n"
        "Required Qualifications: Bachelor's degree in Accounting. Three years of general "
        "ledger experience.\n"
        "Preferred Qualifications: CPA. Experience with NetSuite.\n"
    )
    assert _pairs(text) == [
        ("required", "Bachelor's degree in Accounting."),
        ("required", "Three years of general ledger experience."),
        ("preferred", "CPA."),
        ("preferred", "Experience with NetSuite."),
    ]


def test_french_posting() -> None:
    text = (
        "Développeur Python (H/F)\n\n"
        "Nous sommes une startup parisienne qui développe une plateforme pour les artisans et "
        "nous recrutons un développeur pour notre équipe.\n\n"
        "Vos missions :\n"
        "- Développer des API\n\n"
        "Profil recherché :\n"
        "- 3 ans d'expérience en Python\n"
        "- Maîtrise de PostgreSQL\n\n"
        "Les plus :\n"
        "- Connaissance de Django\n"
    )
    reading = read_checklist(text)
    assert reading.language == "French"
    assert _pairs(text) == [
        ("required", "3 ans d'expérience en Python"),
        ("required", "Maîtrise de PostgreSQL"),
        ("preferred", "Connaissance de Django"),
    ]


def test_model_items_are_grounded_in_the_decoded_text_and_long_ones_kept() -> None:
    from resume_auditor.documents.llm_job import extract_job_llm

    long_item = "Experience " + "with hospital records systems, " * 14 + "and audits"
    text = (
        "Records Clerk\n\n&lt;ul&gt;&lt;li&gt;Knowledge of filing &amp;amp; archiving&lt;/li&gt;"
        f"&lt;li&gt;{long_item}&lt;/li&gt;&lt;/ul&gt;"
    )
    answer = {"required": [{"text": "Knowledge of filing & archiving"}, {"text": long_item}]}
    result = extract_job_llm(text, lambda system, user: json.dumps(answer))
    assert result.used_model, result.problems
    assert [q.text for q in result.job.required] == ["Knowledge of filing & archiving", long_item]


def test_model_fallback_carries_the_reason_the_checklist_is_empty() -> None:
    from resume_auditor.documents.llm_job import extract_job_llm

    text = "Porter\n\nResponsibilities\n- Move furniture\n- Sweep the yard\n"
    result = extract_job_llm(text, lambda system, user: "I cannot help.")
    assert not result.used_model
    assert any("unequal pairs" in p for p in result.problems)


def test_title_case_topic_headings_from_a_pdf_or_word_file() -> None:
    text = (
        "Graphic Designer\n"
        "Acme Studio, Berlin\n"
        "About the job\n"
        "We design books.\n"
        "Key Skills\n"
        "Adobe InDesign\n"
        "Typography\n"
        "Experience\n"
        "Three years in a studio\n"
        "Additional Information\n"
        "Start date is flexible.\n"
    )
    assert _texts(text, QualKind.REQUIRED) == [
        "Adobe InDesign",
        "Typography",
        "Three years in a studio",
    ]


def test_knowledge_skills_and_abilities_then_an_about_section() -> None:
    text = (
        "Program Analyst\n"
        "Duties\n"
        "Analyzes program data.\n"
        "Knowledge, Skills and Abilities\n"
        "Knowledge of federal budgeting\n"
        "Skill in Excel\n"
        "Education\n"
        "Bachelor's degree in public administration\n"
        "About Acme\n"
        "Acme is a consulting firm founded in 1990 with offices in ten states.\n"
    )
    assert _texts(text, QualKind.REQUIRED) == [
        "Knowledge of federal budgeting",
        "Skill in Excel",
        "Bachelor's degree in public administration",
    ]


def test_the_ideal_candidate_lead_in() -> None:
    text = (
        "Care Assistant\n"
        "The ideal candidate will have:\n"
        "- NVQ Level 2 in Health and Social Care\n"
        "- Compassion and patience\n"
        "What we offer:\n"
        "- Paid training\n"
    )
    assert _pairs(text) == [
        ("required", "NVQ Level 2 in Health and Social Care"),
        ("required", "Compassion and patience"),
    ]


def test_sentences_in_a_posting_without_headings() -> None:
    text = (
        "Forklift Driver\n"
        "We are hiring a forklift driver for our warehouse in Dayton. You will move pallets "
        "and load trucks.\n"
        "Applicants must have a valid forklift certification and at least 1 year of "
        "warehouse experience.\n"
        "A high school diploma or GED is required. Bilingual English/Spanish is a plus.\n"
        "Pay is $18/hour. Apply online.\n"
    )
    assert _pairs(text) == [
        (
            "required",
            "Applicants must have a valid forklift certification and at least 1 year of "
            "warehouse experience.",
        ),
        ("required", "A high school diploma or GED is required."),
        ("preferred", "Bilingual English/Spanish is a plus."),
    ]


def test_word_style_markers_and_a_closing_statement_without_a_heading() -> None:
    text = (
        "Lab Technician\n"
        "Qualifications\n"
        "o Associate degree in a laboratory science\n"
        "o Experience with\n"
        "  pipetting robots\n"
        "(a) Clean driving record\n"
        "\u25c6 Willing to work shifts\n"
        "Lab Partners is an equal opportunity employer and considers all applicants without "
        "regard to race, colour, religion or any other protected characteristic.\n"
    )
    assert _texts(text, QualKind.REQUIRED) == [
        "Associate degree in a laboratory science",
        "Experience with pipetting robots",
        "Clean driving record",
        "Willing to work shifts",
    ]


def test_plain_lines_then_boilerplate_in_a_section_without_bullets() -> None:
    text = (
        "Cashier\n"
        "Requirements\n"
        "Cash handling experience\n"
        "Weekend availability\n"
        "We are an equal opportunity employer. All applicants are welcome.\n"
        "Apply now at our store.\n"
    )
    assert _texts(text, QualKind.REQUIRED) == ["Cash handling experience", "Weekend availability"]


def test_a_section_of_duties_and_requirements_keeps_the_requirements() -> None:
    text = (
        "Payroll Clerk\n"
        "Responsibilities & Requirements\n"
        "- Run the weekly payroll\n"
        "- Answer staff questions about payslips, as required\n"
        "- 2+ years of payroll experience\n"
        "- Knowledge of Sage 50\n"
        "- Must be discreet with personal data\n"
    )
    assert _texts(text, QualKind.REQUIRED) == [
        "2+ years of payroll experience",
        "Knowledge of Sage 50",
        "Must be discreet with personal data",
    ]


def test_a_requirement_listed_twice_is_not_taken_for_a_page_header() -> None:
    text = (
        "Bus Driver\n"
        "Requirements\n"
        "- A valid commercial driver's licence with passenger endorsement\n"
        "- Clean driving record\n"
        "Preferred\n"
        "- A valid commercial driver's licence with passenger endorsement\n"
    )
    found = [q.text for q in read_checklist(text).job.qualifications]
    assert found[0] == "A valid commercial driver's licence with passenger endorsement"


def test_extract_job_says_why_the_checklist_is_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from resume_auditor.cli import main

    posting = tmp_path / "porter.md"
    posting.write_text(
        "---\ntitle: Night Porter\nthumbnail: /img/p.png\n---\n"
        "## What you'll do\n- Carry luggage\n- Lock up at 2 am\n",
        encoding="utf-8",
    )
    assert main(["extract", "--job", str(posting)]) == 0
    out = capsys.readouterr().out
    assert "Title: Night Porter" in out and "Required (0):" in out
    assert "'What you'll do'" in out and "unequal pairs" in out and "study file" in out
    assert "thumbnail" not in out.split("-" * 72)[1]
    assert main(["extract", "--job", str(posting), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["qualifications"] == []
    assert any("no required qualification" in w for w in data["warnings"])


def test_yaml_single_quoted_field_over_two_lines_and_bullets_alone_on_their_lines() -> None:
    text = (
        "---\n"
        "title: Host\n"
        "qualifications: 'Must have 2 years of front-of-house experience.\n"
        "  Bilingual is a plus'\n"
        "---\n"
        "Benefits\n"
        "\u2022\n"
        "Staff meals\n"
    )
    assert _pairs(text) == [
        ("required", "Must have 2 years of front-of-house experience."),
        ("preferred", "Bilingual is a plus"),
    ]
    pdf_text = "Host\nRequirements\n\u2022\nFood hygiene certificate\n\u2022\nWeekend work\n"
    assert _texts(pdf_text, QualKind.REQUIRED) == ["Food hygiene certificate", "Weekend work"]


def test_a_duties_lead_in_that_says_you_have_is_not_a_requirements_heading() -> None:
    text = (
        "Data Engineer\n"
        "In this role you have the opportunity to:\n"
        "- Build our lakehouse\n"
        "- Mentor two juniors\n"
        "What you'll bring:\n"
        "- Spark\n"
    )
    assert _pairs(text) == [("required", "Spark")]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("Tutor\nNice to have\n- A teaching degree\n", "Only preferred qualifications"),
        ("Tutor\nRequirements:\n\nBenefits\n- Free lunch\n", "'Requirements' was found but"),
        ("Tutor\n\nWe tutor children in maths after school.\n", "no line reads like a"),
        (
            "Tutor\nRequirements\n" + "".join(f"- Skill number {i} in detail\n" for i in range(45)),
            "45 items",
        ),
        (
            "Tutor\nRequirements\n- XM\n- Read more\n- Sign up\n- Ad\n- Maths degree holder\n",
            "one or two words",
        ),
    ],
)
def test_doubtful_checklists_say_why(text: str, says: str) -> None:
    reading = read_checklist(text)
    assert reading.doubtful
    assert any(says in note for note in reading.notes), reading.notes


def test_advert_markers_of_a_printed_web_page_are_dropped() -> None:
    text = (
        "Baker\nRequirements\nEarly starts\nBest Mortgage Rates | Sponsored\nSponsored\n"
        "Read Next Story\nFood hygiene level 2\n"
    )
    assert _texts(text, QualKind.REQUIRED) == ["Early starts", "Food hygiene level 2"]
